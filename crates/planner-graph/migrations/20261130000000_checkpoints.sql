-- Checkpoints of planner-graph threads: one row per saved step.
CREATE TABLE planner_graph_checkpoints (
    thread_id     text        NOT NULL,
    id            bigint      NOT NULL,
    parent_id     bigint,
    step          bigint      NOT NULL,
    -- The node to run next; NULL once the run reached END.
    next_node     text,
    -- The interrupt payload when the run waits at next_node for an answer.
    interrupt     jsonb,
    state_version integer     NOT NULL,
    state         jsonb       NOT NULL,
    saved_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (thread_id, id),
    FOREIGN KEY (thread_id, parent_id) REFERENCES planner_graph_checkpoints (thread_id, id)
);
