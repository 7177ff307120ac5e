-- The date the public data was snapshotted: every "last N months" and "next N months" window is
-- relative to it, so the same data always gives the same answer.
CREATE TABLE market.snapshot (
    singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    as_of date NOT NULL
);

-- One row per sub-tier agency; a top-tier agency without sub-tiers has one row naming itself.
CREATE TABLE market.agency (
    id smallint PRIMARY KEY,
    toptier_code text NOT NULL,
    toptier_name text NOT NULL,
    subtier_code text NOT NULL UNIQUE,
    subtier_name text NOT NULL
);
CREATE INDEX agency_toptier_name ON market.agency (toptier_name);
CREATE INDEX agency_subtier_name ON market.agency (subtier_name);

CREATE TABLE market.naics (
    code text PRIMARY KEY CHECK (code ~ '^[0-9]{6}$'),
    title text NOT NULL
);

CREATE TABLE market.vendor (
    uei text PRIMARY KEY CHECK (uei ~ '^[A-HJ-NP-Z1-9][A-HJ-NP-Z0-9]{11}$'),
    name text NOT NULL,
    parent_uei text CHECK (parent_uei ~ '^[A-HJ-NP-Z1-9][A-HJ-NP-Z0-9]{11}$'),
    size_status text NOT NULL CHECK (size_status IN ('small', 'other_than_small'))
);
CREATE INDEX vendor_parent_uei ON market.vendor (parent_uei) WHERE parent_uei IS NOT NULL;

CREATE TABLE market.award (
    id bigint PRIMARY KEY,
    piid text NOT NULL UNIQUE,
    agency_id smallint NOT NULL REFERENCES market.agency (id),
    naics text NOT NULL REFERENCES market.naics (code),
    recipient_uei text NOT NULL REFERENCES market.vendor (uei),
    start_date date NOT NULL,
    current_end_date date NOT NULL,
    potential_end_date date NOT NULL,
    obligated numeric(16, 2) NOT NULL CHECK (obligated >= 0),
    base_and_all_options numeric(16, 2) NOT NULL CHECK (base_and_all_options >= obligated),
    set_aside text NOT NULL,
    CHECK (start_date <= current_end_date AND current_end_date <= potential_end_date)
);
-- Spend and incumbents of one agency and NAICS code over a window, answered from the index.
CREATE INDEX award_agency_naics_start ON market.award (agency_id, naics, start_date)
    INCLUDE (recipient_uei, obligated);
-- Recompetes: awards of one agency and NAICS code by potential end date.
CREATE INDEX award_agency_naics_potential_end ON market.award (agency_id, naics, potential_end_date);
-- Market share of one NAICS code over a window.
CREATE INDEX award_naics_start ON market.award (naics, start_date) INCLUDE (recipient_uei, obligated);
-- One vendor's awards.
CREATE INDEX award_recipient_start ON market.award (recipient_uei, start_date);

-- Summary of awards per agency, NAICS code and vendor: the "cells" competitors share.
-- Rebuilt by market.refresh_vendor_cells() after a load.
CREATE TABLE market.vendor_cell (
    agency_id smallint NOT NULL REFERENCES market.agency (id),
    naics text NOT NULL,
    uei text NOT NULL,
    awards integer NOT NULL,
    obligated numeric(18, 2) NOT NULL,
    PRIMARY KEY (agency_id, naics, uei)
);
CREATE INDEX vendor_cell_uei ON market.vendor_cell (uei, naics, agency_id);

CREATE FUNCTION market.refresh_vendor_cells() RETURNS void
LANGUAGE sql AS $$
    DELETE FROM market.vendor_cell;
    INSERT INTO market.vendor_cell (agency_id, naics, uei, awards, obligated)
    SELECT agency_id, naics, recipient_uei, count(*), sum(obligated)
    FROM market.award
    GROUP BY agency_id, naics, recipient_uei;
$$;

-- A subaward: an edge from a prime vendor to a subcontractor on one prime award.
CREATE TABLE graph.subaward (
    id bigint PRIMARY KEY,
    prime_award_id bigint NOT NULL REFERENCES market.award (id),
    prime_uei text NOT NULL REFERENCES market.vendor (uei),
    sub_uei text NOT NULL REFERENCES market.vendor (uei),
    amount numeric(16, 2) NOT NULL CHECK (amount >= 0),
    action_date date NOT NULL,
    CHECK (prime_uei <> sub_uei)
);
CREATE INDEX subaward_prime ON graph.subaward (prime_uei, sub_uei) INCLUDE (amount);
CREATE INDEX subaward_sub ON graph.subaward (sub_uei, prime_uei) INCLUDE (amount);
CREATE INDEX subaward_prime_award ON graph.subaward (prime_award_id);
