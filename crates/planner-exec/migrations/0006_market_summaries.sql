-- Competitors: a vendor's rank by obligations within each agency and NAICS cell, so "who else
-- wins in my cells" reads the top of each cell instead of every vendor that ever won there.
ALTER TABLE market.vendor_cell ADD COLUMN cell_rank integer NOT NULL DEFAULT 0;
CREATE INDEX vendor_cell_rank ON market.vendor_cell (agency_id, naics, cell_rank)
    INCLUDE (uei, awards, obligated);

CREATE OR REPLACE FUNCTION market.refresh_vendor_cells() RETURNS void
LANGUAGE sql AS $$
    DELETE FROM market.vendor_cell;
    INSERT INTO market.vendor_cell (agency_id, naics, uei, awards, obligated, cell_rank)
    SELECT agency_id, naics, recipient_uei, count(*), sum(obligated),
           row_number() OVER (PARTITION BY agency_id, naics
                              ORDER BY sum(obligated) DESC, recipient_uei)
    FROM market.award
    GROUP BY agency_id, naics, recipient_uei;
$$;
REVOKE EXECUTE ON FUNCTION market.refresh_vendor_cells() FROM PUBLIC;
SELECT market.refresh_vendor_cells();

-- Recompetes: everything the intent shows comes from the index.
DROP INDEX market.award_agency_naics_potential_end;
CREATE INDEX award_agency_naics_potential_end
    ON market.award (agency_id, naics, potential_end_date)
    INCLUDE (piid, recipient_uei, base_and_all_options, current_end_date);
