-- One row per answer, counts only (ARCHITECTURE.md invariant 7): never a param value, a
-- question, an answer text or a person's id.
CREATE TABLE audit.answer_log (
    id uuid PRIMARY KEY,
    recorded_at timestamptz NOT NULL DEFAULT now(),
    intents text[] NOT NULL,
    param_kinds text[] NOT NULL,
    node_count smallint NOT NULL CHECK (node_count >= 0),
    suppressed_cells integer NOT NULL CHECK (suppressed_cells >= 0),
    faithfulness text NOT NULL
        CHECK (faithfulness IN ('passed', 'failed', 'not_narrated')),
    self_consistency text NOT NULL
        CHECK (self_consistency IN ('not_sampled', 'unanimous', 'majority', 'no_majority')),
    route text NOT NULL
        CHECK (route IN ('single', 'plan', 'clarify', 'refused', 'unplannable')),
    latency_ms integer NOT NULL CHECK (latency_ms >= 0)
);

-- Append-only, whoever asks: the trigger binds the owner and superusers too.
CREATE FUNCTION audit.reject_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the audit log is append-only' USING ERRCODE = 'insufficient_privilege';
END
$$;
CREATE TRIGGER answer_log_append_only BEFORE UPDATE OR DELETE ON audit.answer_log
    FOR EACH ROW EXECUTE FUNCTION audit.reject_change();
CREATE TRIGGER answer_log_no_truncate BEFORE TRUNCATE ON audit.answer_log
    FOR EACH STATEMENT EXECUTE FUNCTION audit.reject_change();
