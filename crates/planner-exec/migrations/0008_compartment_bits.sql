-- Compartment tests as integer masks. Testing a candidate's compartments array against the
-- asked ones (`@>`) deconstructs two arrays per row; the bench counts do it for tens of
-- thousands of rows per answer. A mask holds one bit per supported code (G 1, HCS 2, KLM 4,
-- SI 8, TK 16) and 32 for anything else (another code or a null element), so that
-- `candidate & asked = asked` is exactly `@>` whenever the asked codes are all supported, and a
-- necessary condition otherwise (the queries then also test the arrays).
CREATE FUNCTION bench.compartment_bits(codes text[]) RETURNS integer
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT coalesce(bit_or(CASE code
                               WHEN 'G' THEN 1
                               WHEN 'HCS' THEN 2
                               WHEN 'KLM' THEN 4
                               WHEN 'SI' THEN 8
                               WHEN 'TK' THEN 16
                               ELSE 32
                           END), 0)
    FROM unnest(codes) AS code
$$;
REVOKE EXECUTE ON FUNCTION bench.compartment_bits(text[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION bench.compartment_bits(text[]) TO planner_reader;

-- Kept in step with `compartments` by PostgreSQL itself.
ALTER TABLE bench.candidate ADD COLUMN compartment_bits integer
    GENERATED ALWAYS AS (bench.compartment_bits(compartments)) STORED;

-- bench_compartment_counts and bench_requirement_fit read the mask (and the array, for asked
-- codes outside the supported set) from the index.
DROP INDEX bench.candidate_counts_by_compartments;
CREATE INDEX candidate_counts_by_compartments
    ON bench.candidate (tenant_id, clearance_rank, available_from)
    INCLUDE (compartment_bits, compartments)
    WHERE clearance_status IN ('active', 'current');
DROP INDEX bench.candidate_counts_by_category;
CREATE INDEX candidate_counts_by_category ON bench.candidate (tenant_id, clearance_rank)
    INCLUDE (compartment_bits, compartments, labor_category)
    WHERE clearance_status IN ('active', 'current');
