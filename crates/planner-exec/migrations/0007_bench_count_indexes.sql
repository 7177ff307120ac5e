-- Bench counts read only active and current clearances. Partial indexes hold just those rows and
-- just the columns each count needs, so every bench intent is an index-only scan of one tenant's
-- rows with no per-row status filter.
DROP INDEX bench.candidate_tenant_rank;
DROP INDEX bench.candidate_tenant_available;

-- bench_clearance_counts: by level, then availability date.
CREATE INDEX candidate_counts_by_rank ON bench.candidate (tenant_id, clearance_rank, available_from)
    WHERE clearance_status IN ('active', 'current');
-- bench_compartment_counts: the same, with the compartments to test.
CREATE INDEX candidate_counts_by_compartments
    ON bench.candidate (tenant_id, clearance_rank, available_from)
    INCLUDE (compartments)
    WHERE clearance_status IN ('active', 'current');
-- bench_requirement_fit: by level, with compartments and labor category.
CREATE INDEX candidate_counts_by_category ON bench.candidate (tenant_id, clearance_rank)
    INCLUDE (compartments, labor_category)
    WHERE clearance_status IN ('active', 'current');
-- bench_availability: by availability date, with the level.
CREATE INDEX candidate_counts_by_availability ON bench.candidate (tenant_id, available_from)
    INCLUDE (clearance_rank)
    WHERE clearance_status IN ('active', 'current');
