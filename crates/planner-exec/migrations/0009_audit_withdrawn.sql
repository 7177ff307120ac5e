-- Answers withdrawn after their audit row was written.
--
-- A row of audit.answer_log records an answer whose audit committed. The caller may still never
-- receive that answer: its request was cancelled (the server's request timeout) or failed after
-- the audit write began (the reply of a commit can always be lost). A commit alone cannot tell the
-- two apart, so the engine records the second case here: an id in audit.withdrawn says that the
-- caller never received the answer of that id. The id need not be in audit.answer_log (the audit
-- write may have failed before its commit); an id written twice is one row.
CREATE TABLE audit.withdrawn (
    id uuid PRIMARY KEY,
    withdrawn_at timestamptz NOT NULL DEFAULT now()
);

-- Append-only, exactly like the answer log (the trigger binds the owner and superusers too).
CREATE TRIGGER withdrawn_append_only BEFORE UPDATE OR DELETE ON audit.withdrawn
    FOR EACH ROW EXECUTE FUNCTION audit.reject_change();
CREATE TRIGGER withdrawn_no_truncate BEFORE TRUNCATE ON audit.withdrawn
    FOR EACH STATEMENT EXECUTE FUNCTION audit.reject_change();

-- The audit writer: INSERT on the withdrawals, and nothing else (no SELECT, UPDATE or DELETE).
GRANT INSERT ON audit.withdrawn TO planner_audit;
REVOKE UPDATE, DELETE, TRUNCATE ON audit.withdrawn FROM PUBLIC, planner_reader, planner_audit;

-- The answers given: one row per answer a caller received, exactly.
CREATE VIEW audit.answers_given AS
    SELECT log.*
    FROM audit.answer_log AS log
    WHERE NOT EXISTS (SELECT FROM audit.withdrawn AS w WHERE w.id = log.id);
REVOKE ALL ON audit.answers_given FROM PUBLIC, planner_reader, planner_audit;
