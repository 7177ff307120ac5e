-- The documents the acquisition agent searches, with a full-text index.
CREATE TABLE acquire_documents (
    id     text PRIMARY KEY,
    title  text NOT NULL,
    source text NOT NULL,
    body   text NOT NULL,
    tsv    tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('english', title), 'A') || setweight(to_tsvector('english', body), 'B')
    ) STORED
);

CREATE INDEX acquire_documents_tsv ON acquire_documents USING gin (tsv);
