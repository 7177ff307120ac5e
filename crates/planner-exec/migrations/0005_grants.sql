-- Functions are executable by PUBLIC by default; none of ours is meant for the application roles.
REVOKE EXECUTE ON ALL FUNCTIONS IN SCHEMA market, audit FROM PUBLIC;

-- The reader: SELECT on the market, graph, requirement and bench tables; nothing else.
GRANT USAGE ON SCHEMA market, graph, capture, bench TO planner_reader;
GRANT SELECT ON ALL TABLES IN SCHEMA market, graph, capture, bench TO planner_reader;

-- The audit writer: INSERT on the answer log, and nothing else (no SELECT, UPDATE or DELETE).
GRANT USAGE ON SCHEMA audit TO planner_audit;
GRANT INSERT ON audit.answer_log TO planner_audit;
REVOKE UPDATE, DELETE, TRUNCATE ON audit.answer_log FROM PUBLIC, planner_reader, planner_audit;
