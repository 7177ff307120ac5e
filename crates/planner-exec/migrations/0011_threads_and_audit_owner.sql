-- Who a thread belongs to, and who an answer was given to.
--
-- The runtime login (`planner_app`, created with its grants by the least-privilege migration when
-- present) is created here NOLOGIN if it does not exist yet, so that these grants apply either way.
DO $$
BEGIN
    BEGIN
        CREATE ROLE planner_app NOLOGIN;
    EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
    END;
END
$$;

-- A thread waiting for the user's answer: its tenant and the key that started it. planner-graph's
-- checkpoints stay generic (a thread id and a state); the engine resumes a thread only for a key
-- of the same tenant, while the starting key is not revoked and the thread is younger than the
-- retention, and prunes threads (with their checkpoints) past the retention.
CREATE TABLE admin.thread (
    id uuid PRIMARY KEY,
    tenant_id uuid REFERENCES admin.tenant (id) ON DELETE CASCADE,
    -- NULL: started without a key (the command line, which names its tenant itself).
    key_id uuid REFERENCES admin.api_key (id) ON DELETE CASCADE,
    started_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX thread_started ON admin.thread (started_at);
GRANT USAGE ON SCHEMA admin TO planner_app;
GRANT SELECT, INSERT, DELETE ON admin.thread TO planner_app;

-- Audit rows name the tenant and the key an answer was given to (ids only, never a value), and
-- count the plan nodes that were dropped (not run): `intents` lists the ones that ran.
ALTER TABLE audit.answer_log
    ADD COLUMN tenant_id uuid,
    ADD COLUMN key_id uuid,
    ADD COLUMN dropped_nodes smallint NOT NULL DEFAULT 0 CHECK (dropped_nodes >= 0);
-- The view lists the log's columns as they were when it was made: remade with the new ones.
CREATE OR REPLACE VIEW audit.answers_given AS
    SELECT log.*
    FROM audit.answer_log AS log
    WHERE NOT EXISTS (SELECT FROM audit.withdrawn AS w WHERE w.id = log.id);
REVOKE ALL ON audit.answers_given FROM PUBLIC, planner_reader, planner_audit, planner_app;
-- INSERT is granted on the whole table (0005), so the new columns are writable by the writer.
