CREATE TABLE admin.tenant (
    id uuid PRIMARY KEY,
    name text NOT NULL UNIQUE CHECK (name <> ''),
    created_at timestamptz NOT NULL DEFAULT now()
);

-- API keys are stored as the SHA-256 of the key; the key itself is shown once, at creation.
CREATE TABLE admin.api_key (
    id uuid PRIMARY KEY,
    tenant_id uuid NOT NULL REFERENCES admin.tenant (id),
    key_hash bytea NOT NULL UNIQUE CHECK (length(key_hash) = 32),
    key_prefix text NOT NULL,
    scopes text[] NOT NULL DEFAULT '{}',
    created_at timestamptz NOT NULL DEFAULT now(),
    revoked_at timestamptz
);
CREATE INDEX api_key_tenant ON admin.api_key (tenant_id);

-- Clearance levels in order: "at or above a level" compares ranks.
CREATE TABLE bench.clearance_level (
    name text PRIMARY KEY,
    rank smallint NOT NULL UNIQUE
);
INSERT INTO bench.clearance_level (name, rank) VALUES
    ('confidential', 1), ('secret', 2), ('top_secret', 3), ('ts_sci', 4);

CREATE TABLE capture.requirement (
    id uuid PRIMARY KEY,
    tenant_id uuid NOT NULL REFERENCES admin.tenant (id),
    title text NOT NULL,
    agency text NOT NULL,
    naics text NOT NULL CHECK (naics ~ '^[0-9]{6}$'),
    clearance text NOT NULL REFERENCES bench.clearance_level (name),
    compartments text[] NOT NULL DEFAULT '{}',
    seats integer NOT NULL CHECK (seats > 0),
    due_date date NOT NULL,
    predecessor_piid text
);
CREATE INDEX requirement_tenant ON capture.requirement (tenant_id);

CREATE TABLE bench.candidate (
    id uuid PRIMARY KEY,
    tenant_id uuid NOT NULL REFERENCES admin.tenant (id),
    clearance text NOT NULL REFERENCES bench.clearance_level (name),
    clearance_rank smallint NOT NULL CHECK (clearance_rank BETWEEN 1 AND 4),
    clearance_status text NOT NULL CHECK (clearance_status IN ('active', 'current', 'expired')),
    compartments text[] NOT NULL DEFAULT '{}',
    polygraph text NOT NULL CHECK (polygraph IN ('none', 'ci', 'full_scope')),
    labor_category text NOT NULL,
    skills text[] NOT NULL DEFAULT '{}',
    available_from date NOT NULL
);
-- Counts by clearance and availability for one tenant, answered from the index.
CREATE INDEX candidate_tenant_rank ON bench.candidate (tenant_id, clearance_rank, available_from)
    INCLUDE (clearance_status, compartments, labor_category);
CREATE INDEX candidate_tenant_available ON bench.candidate (tenant_id, available_from)
    INCLUDE (clearance_rank, clearance_status);

-- Present only so that tests can prove nothing reaches it.
CREATE TABLE eeo.self_identification (
    candidate_id uuid PRIMARY KEY REFERENCES bench.candidate (id),
    tenant_id uuid NOT NULL REFERENCES admin.tenant (id),
    category text NOT NULL,
    response text NOT NULL
);

-- Row-level security, forced (so it binds the table owner too), keyed on the tenant the guarded
-- executor sets with set_config('planner.tenant', ..., true) inside its transaction. With no
-- tenant set, no row is visible.
ALTER TABLE capture.requirement ENABLE ROW LEVEL SECURITY;
ALTER TABLE capture.requirement FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_rows ON capture.requirement
    USING (tenant_id = NULLIF(current_setting('planner.tenant', true), '')::uuid);

ALTER TABLE bench.candidate ENABLE ROW LEVEL SECURITY;
ALTER TABLE bench.candidate FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_rows ON bench.candidate
    USING (tenant_id = NULLIF(current_setting('planner.tenant', true), '')::uuid);

ALTER TABLE eeo.self_identification ENABLE ROW LEVEL SECURITY;
ALTER TABLE eeo.self_identification FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_rows ON eeo.self_identification
    USING (tenant_id = NULLIF(current_setting('planner.tenant', true), '')::uuid);
