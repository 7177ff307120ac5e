-- Roles are cluster-wide while each test gets its own database, so several migrations may try to
-- create the same role at once: the loser of that race sees duplicate_object or unique_violation.
DO $$
BEGIN
    BEGIN
        CREATE ROLE planner_owner NOLOGIN;
    EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
    END;
    BEGIN
        CREATE ROLE planner_reader NOLOGIN;
    EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
    END;
    BEGIN
        CREATE ROLE planner_audit NOLOGIN;
    EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
    END;
END
$$;

-- One schema per plane, plus administration, audit and the unreachable `eeo`.
CREATE SCHEMA market;   -- public award data
CREATE SCHEMA graph;    -- vendor relationships (subawards)
CREATE SCHEMA capture;  -- the tenants' requirements
CREATE SCHEMA bench;    -- the tenants' candidates (counts only)
CREATE SCHEMA admin;    -- tenants and API keys
CREATE SCHEMA audit;    -- the append-only answer log
CREATE SCHEMA eeo;      -- voluntary self-identification: no application role may read it

REVOKE ALL ON SCHEMA market, graph, capture, bench, admin, audit, eeo FROM PUBLIC;
GRANT USAGE, CREATE ON SCHEMA market, graph, capture, bench, admin, audit, eeo TO planner_owner;
