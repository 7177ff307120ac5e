//! The `planner` binary's admin commands: `registry check`, `graph --mermaid`, `keys` and `db`
//! on a test database.

use std::process::{Command, Output};

use sqlx::PgPool;

fn planner(args: &[&str], database_url: Option<&str>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_planner"));
    command.args(args).env_remove("DATABASE_URL").env("PLANNER_DATA_DIR", "/nonexistent/planner");
    if let Some(url) = database_url {
        command.env("DATABASE_URL", url);
    }
    command.output().unwrap()
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

/// The URL of the test's own database: the server and credentials of DATABASE_URL (a container
/// needs its password), the database of `pool`.
fn url_of(pool: &PgPool) -> String {
    let server = std::env::var("DATABASE_URL").expect("DATABASE_URL names the test server");
    let base = server.split('?').next().unwrap_or(&server);
    let (server, _) = base.rsplit_once('/').expect("DATABASE_URL has a database");
    format!("{server}/{}", pool.connect_options().get_database().unwrap())
}

#[test]
fn registry_check_accepts_the_reference_registry() {
    let output = planner(&["registry", "check", "../../fixtures/registry/capture.toml"], None);
    assert!(output.status.success(), "{output:?}");
    assert!(stdout(&output).contains(": ok ("), "{}", stdout(&output));
}

#[test]
fn registry_check_lists_every_problem_with_its_location() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bad.toml");
    std::fs::write(&file, "[settings]\nnode_cap = \"six\"\n\n[[intent]]\nname = 7\n").unwrap();
    let output = planner(&["registry", "check", file.to_str().unwrap()], None);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let text = stdout(&output);
    let origin = file.display().to_string();
    let located: Vec<&str> =
        text.lines().filter(|line| line.starts_with(&format!("{origin}:"))).collect();
    assert!(!located.is_empty(), "{text}");
    assert!(text.contains("problem(s)"), "{text}");
}

#[test]
fn graph_prints_the_mermaid_flowchart() {
    let output = planner(&["graph", "--mermaid"], None);
    assert!(output.status.success(), "{output:?}");
    assert!(stdout(&output).starts_with("flowchart"), "{}", stdout(&output));
    let svg = planner(&["graph", "--svg"], None);
    assert!(svg.status.success(), "{svg:?}");
    let text = stdout(&svg);
    assert!(text.starts_with("<svg") && text.contains(">faithfulness_gate<"), "{text}");
}

#[sqlx::test]
async fn keys_are_created_for_a_tenant_and_revoked(pool: PgPool) {
    planner_engine::migrate(&pool).await.unwrap();
    let options = planner_dataset::SeedOptions::demo(0.02);
    planner_dataset::seed(&pool, &options).await.unwrap();
    let url = url_of(&pool);
    let tenant = planner_dataset::DEMO_TENANTS[0];
    let created =
        planner(&["keys", "create", "--tenant", tenant.name, "--scope", "bench"], Some(&url));
    assert!(created.status.success(), "{created:?}");
    let text = stdout(&created);
    let field = |name: &str| {
        text.lines()
            .find_map(|line| line.strip_prefix(name))
            .unwrap_or_else(|| panic!("no {name} in {text}"))
            .trim()
            .to_owned()
    };
    let secret = field("key (shown only now; store it):");
    let id = field("key id:");
    let key = planner_exec::verify_api_key(&pool, &secret).await.unwrap().unwrap();
    assert_eq!(key.tenant.0, tenant.id);
    assert_eq!(key.scopes, ["bench"]);

    let status = planner(&["db", "status"], Some(&url));
    assert!(status.status.success(), "{status:?}");
    assert!(stdout(&status).contains("live API keys: 1"), "{}", stdout(&status));

    let revoked = planner(&["keys", "revoke", &id], Some(&url));
    assert!(revoked.status.success(), "{revoked:?}");
    assert!(planner_exec::verify_api_key(&pool, &secret).await.unwrap().is_none());
    let again = planner(&["keys", "revoke", &id], Some(&url));
    assert_eq!(again.status.code(), Some(1));
    // Seeding a database that holds data fails; reset needs --yes with DATABASE_URL.
    assert_eq!(planner(&["db", "seed", "--scale", "0.02"], Some(&url)).status.code(), Some(1));
    assert!(!planner(&["db", "reset"], Some(&url)).status.success());
}

#[test]
fn serve_rejects_a_configuration_file_with_an_unknown_setting() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("planner.toml");
    std::fs::write(&file, "[serve]\nmax_inflight = 8\n").unwrap();
    let output = planner(&["serve", "--config", file.to_str().unwrap()], None);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("planner.toml") && stderr.contains("max_inflight"), "{stderr}");
}
