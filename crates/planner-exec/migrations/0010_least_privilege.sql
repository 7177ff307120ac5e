-- Least privilege, enforced by PostgreSQL itself (the second line of defence behind the SQL guard).
--
-- Logins:
--   * the migrating login (a superuser in development, or a dedicated owner) runs these
--     migrations and owns every object;
--   * `planner_app`, the runtime login `serve` and `ask` use: owns nothing, is no superuser,
--     inherits nothing (NOINHERIT), and may only `SET ROLE` to the plane readers and the audit
--     writer below. Its password is set outside the migrations (`planner_exec::enable_runtime_login`,
--     or a DBA's `ALTER ROLE planner_app LOGIN PASSWORD ...`).
--
-- Plane readers (one per kind of plane; the executor picks the one of the intent's plane):
--   * planner_read_public: planes without tenant rows (market, graph): market and graph only;
--   * planner_read_tenant: tenant planes (requirements): market, graph, capture, rows through
--     FORCE'd row-level security;
--   * planner_read_bench: count planes (the bench): market, capture, bench, rows through FORCE'd
--     row-level security.
-- No reader has any privilege on admin, audit or eeo, and none may call set_config, the
-- query-as-text functions or the other escape hatches revoked from PUBLIC below.

DO $$
BEGIN
    BEGIN
        CREATE ROLE planner_read_public NOLOGIN;
    EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
    END;
    BEGIN
        CREATE ROLE planner_read_tenant NOLOGIN;
    EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
    END;
    BEGIN
        CREATE ROLE planner_read_bench NOLOGIN;
    EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
    END;
    BEGIN
        CREATE ROLE planner_app NOLOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT
            NOREPLICATION NOBYPASSRLS;
    EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
    END;
END
$$;

-- Role memberships are cluster-wide: several databases may be migrated at once.
DO $$
DECLARE
    granted text;
BEGIN
    FOREACH granted IN ARRAY ARRAY['planner_read_public', 'planner_read_tenant',
                                   'planner_read_bench', 'planner_audit']
    LOOP
        IF NOT EXISTS (
            SELECT 1 FROM pg_auth_members AS m
            WHERE m.roleid = granted::regrole AND m.member = 'planner_app'::regrole
        ) THEN
            BEGIN
                EXECUTE format('GRANT %I TO planner_app', granted);
            EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
            END;
        END IF;
    END LOOP;
END
$$;

-- The old catch-all reader keeps nothing.
REVOKE ALL ON ALL TABLES IN SCHEMA market, graph, capture, bench FROM planner_reader;
REVOKE ALL ON SCHEMA market, graph, capture, bench FROM planner_reader;
REVOKE ALL ON FUNCTION bench.compartment_bits(text[]) FROM planner_reader;

GRANT USAGE ON SCHEMA market, graph TO planner_read_public;
GRANT SELECT ON ALL TABLES IN SCHEMA market, graph TO planner_read_public;

GRANT USAGE ON SCHEMA market, graph, capture TO planner_read_tenant;
GRANT SELECT ON ALL TABLES IN SCHEMA market, graph, capture TO planner_read_tenant;

GRANT USAGE ON SCHEMA market, capture, bench TO planner_read_bench;
GRANT SELECT ON ALL TABLES IN SCHEMA market, capture, bench TO planner_read_bench;
GRANT EXECUTE ON FUNCTION bench.compartment_bits(text[]) TO planner_read_bench;

-- The runtime login itself: look API keys up by hash. (Its grant on the graph checkpoints,
-- whose table another migrator creates, is `planner_exec::grant_checkpoints`.)
GRANT USAGE ON SCHEMA admin TO planner_app;
GRANT SELECT (id, tenant_id, scopes, key_hash, revoked_at) ON admin.api_key TO planner_app;

-- Escape hatches, revoked from PUBLIC: changing a setting from inside a statement (the tenant,
-- the role, the timeout), running a query given as text past the guard, and signalling other
-- sessions. (Sleeping and advisory locks stay: the statement timeout bounds them.) Only a superuser
-- (the owner of pg_catalog) can revoke these; elsewhere PostgreSQL warns and changes nothing,
-- and the executor's post-condition still catches a changed setting (docs/architecture.md).
REVOKE EXECUTE ON FUNCTION pg_catalog.set_config(text, text, boolean) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION pg_catalog.query_to_xml(text, boolean, boolean, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION pg_catalog.query_to_xmlschema(text, boolean, boolean, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION pg_catalog.query_to_xml_and_xmlschema(text, boolean, boolean, text)
    FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION pg_catalog.table_to_xml(regclass, boolean, boolean, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION pg_catalog.table_to_xmlschema(regclass, boolean, boolean, text)
    FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION pg_catalog.table_to_xml_and_xmlschema(regclass, boolean, boolean, text)
    FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION pg_catalog.cursor_to_xml(refcursor, integer, boolean, boolean, text)
    FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION pg_catalog.cursor_to_xmlschema(refcursor, boolean, boolean, text)
    FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION pg_catalog.schema_to_xml(name, boolean, boolean, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION pg_catalog.schema_to_xmlschema(name, boolean, boolean, text)
    FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION pg_catalog.schema_to_xml_and_xmlschema(name, boolean, boolean, text)
    FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION pg_catalog.database_to_xml(boolean, boolean, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION pg_catalog.database_to_xmlschema(boolean, boolean, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION pg_catalog.database_to_xml_and_xmlschema(boolean, boolean, text)
    FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION pg_catalog.ts_stat(text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION pg_catalog.ts_stat(text, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION pg_catalog.ts_rewrite(tsquery, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION pg_catalog.pg_cancel_backend(integer) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION pg_catalog.pg_terminate_backend(integer, bigint) FROM PUBLIC;
