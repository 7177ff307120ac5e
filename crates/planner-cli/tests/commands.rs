//! The `planner` binary's admin commands: `registry check`, `graph --mermaid`, `keys` and `db`
//! on a test database, and the configuration errors of `ask` and `serve`.

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
    assert!(stdout(&status).contains("demo dataset: loaded ("), "{}", stdout(&status));

    let revoked = planner(&["keys", "revoke", &id], Some(&url));
    assert!(revoked.status.success(), "{revoked:?}");
    assert!(planner_exec::verify_api_key(&pool, &secret).await.unwrap().is_none());
    let again = planner(&["keys", "revoke", &id], Some(&url));
    assert_eq!(again.status.code(), Some(1));
    // A misspelt name creates no tenant; a new tenant needs --new-tenant, once.
    let tenants = || async {
        sqlx::query_scalar::<_, i64>("SELECT count(*) FROM admin.tenant")
            .fetch_one(&pool)
            .await
            .unwrap()
    };
    let before = tenants().await;
    let misspelt =
        planner(&["keys", "create", "--tenant", "Northwind Cleared Stafing"], Some(&url));
    assert_eq!(misspelt.status.code(), Some(1), "{misspelt:?}");
    assert!(String::from_utf8_lossy(&misspelt.stderr).contains("--new-tenant"), "{misspelt:?}");
    assert_eq!(tenants().await, before);
    let new = ["keys", "create", "--tenant", "Juniper Staffing", "--new-tenant"];
    assert!(planner(&new, Some(&url)).status.success());
    assert_eq!(tenants().await, before + 1);
    assert_eq!(planner(&new, Some(&url)).status.code(), Some(1));
    let again = planner(&["keys", "create", "--tenant", "Juniper Staffing"], Some(&url));
    assert!(again.status.success(), "{again:?}");
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

#[test]
fn the_model_narrator_without_a_model_server_is_a_clear_error() {
    let ask: &[&str] = &["ask", "--narrator", "model", "Who are the top incumbents?"];
    let serve: &[&str] = &["serve", "--narrator", "model", "--addr", "127.0.0.1:0"];
    for args in [ask, serve] {
        let output = planner(args, None);
        assert_eq!(output.status.code(), Some(1), "{output:?}");
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert!(
            stderr.contains("--narrator model needs a model server: add --model-url"),
            "{stderr}"
        );
    }
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}

#[sqlx::test]
async fn bench_in_process_reports_answers_beside_the_raw_statements(pool: PgPool) {
    planner_engine::migrate(&pool).await.unwrap();
    planner_dataset::seed(&pool, &planner_dataset::SeedOptions::demo(0.02)).await.unwrap();
    let url = url_of(&pool);
    let args = ["bench", "--requests", "24", "--concurrency", "2", "--warmup", "0s", "--json"];
    let output = planner(&args, Some(&url));
    assert!(output.status.success(), "{output:?}");
    let report: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(report["mode"], "in_process");
    assert_eq!(report["concurrency"], 2);
    let answers = &report["answers"];
    assert_eq!(answers["count"], 24, "{report}");
    assert_eq!(answers["errors"], serde_json::json!({}), "{report}");
    let latency = |phase: &serde_json::Value, key: &str| phase["latency_us"][key].as_u64().unwrap();
    for phase in [answers, &report["raw"]["sets"]] {
        assert!(latency(phase, "p50") > 0, "{report}");
        assert!(latency(phase, "p50") <= latency(phase, "p90"));
        assert!(latency(phase, "p90") <= latency(phase, "p99"));
        assert!(latency(phase, "p99") <= latency(phase, "max"));
        assert!(phase["per_second"].as_f64().unwrap() > 0.0);
    }
    let raw = &report["raw"];
    assert_eq!(raw["path"], "guarded");
    assert_eq!(raw["sets"]["count"], 24);
    assert_eq!(raw["sets"]["errors"], serde_json::json!({}), "{report}");
    assert!(raw["statements"].as_u64().unwrap() >= 24);
    assert!(report["ratio"].as_f64().unwrap() > 0.0);
    // This process's CPU of the raw phase, and the answers' beyond it (the guarded path runs
    // the answers' own statements).
    assert!(raw["cpu_us_per_set"].as_f64().is_some(), "{report}");
    let engine = &report["engine"];
    let outside = engine["cpu_us_outside_sql"].as_f64().unwrap();
    let per_answer = engine["cpu_us_per_answer"].as_f64().unwrap();
    let per_set = raw["cpu_us_per_set"].as_f64().unwrap();
    assert!((per_answer - per_set - outside).abs() < 0.2, "{report}");
    // The default corpus: the single-intent and compound questions of the dev corpus.
    let questions = report["questions"].as_u64().unwrap();
    assert!(questions >= 100, "{report}");
    assert!(report["skipped"]["refused"].as_u64().unwrap() > 0);
    let per_question = report["per_question"].as_array().unwrap();
    assert_eq!(per_question.len() as u64, questions);
    let asked: u64 = per_question.iter().map(|q| q["answers"].as_u64().unwrap()).sum();
    assert_eq!(asked, 24);
    assert!(per_question.iter().any(|q| q["nodes"].as_u64().unwrap() >= 2));

    // Text, single-intent questions only, the plain sqlx baseline, memory samples.
    let args = [
        "bench",
        "--only",
        "single",
        "--requests",
        "6",
        "--warmup",
        "0s",
        "--raw",
        "sqlx",
        "--rss-every",
        "10ms",
    ];
    let output = planner(&args, Some(&url));
    assert!(output.status.success(), "{output:?}");
    let text = stdout(&output);
    assert!(text.contains("answers: 6 in "), "{text}");
    assert!(text.contains("raw SQL (sqlx path, no planner): 6 statement sets"), "{text}");
    assert!(text.contains("ratio answers/s ÷ raw sets/s: "), "{text}");
    assert!(text.contains("resident memory: ") && text.contains("load average: "), "{text}");
    assert!(text.contains("questions: ") && text.contains("(single "), "{text}");
    assert!(!text.contains("compound "), "{text}");
}

#[test]
fn bench_rejects_bad_flags_with_a_clear_error() {
    let cases: [(&[&str], &str); 7] = [
        (&["bench", "--concurrency", "0"], "--concurrency"),
        (&["bench", "--duration", "5parsecs"], "not a duration"),
        (&["bench", "--duration", "1s", "--requests", "3"], "cannot be used with"),
        (&["bench", "--url", "http://127.0.0.1:9"], "--key"),
        (&["bench", "--plot", "x.svg"], "--sweep"),
        (&["bench", "--rate", "0"], "not a positive number"),
        (&["bench", "--raw", "psql"], "guarded"),
    ];
    for (args, expected) in cases {
        let output = planner(args, None);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {output:?}");
        assert!(stderr(&output).contains(expected), "{args:?}: {}", stderr(&output));
    }
    let output = planner(&["bench", "--corpus", "/nonexistent/questions.txt"], None);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert!(stderr(&output).contains("cannot read /nonexistent/questions.txt"), "{output:?}");
    let output = planner(&["bench", "--url", "ftp://host", "--key", "k"], None);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert!(stderr(&output).contains("not an http:// or https:// URL"), "{output:?}");
}

/// A reader that has gone (`planner plan ... | head -0`) ends the run quietly with success:
/// no panic, no error line.
#[test]
fn a_closed_output_pipe_ends_the_run_quietly() {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let output = Command::new(env!("CARGO_BIN_EXE_planner"))
        .args(["plan", "--json", "--", "Who are the incumbents for NAICS 541512?"])
        .env_remove("DATABASE_URL")
        .stdout(writer)
        .stderr(std::process::Stdio::piped())
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    assert_eq!(stderr(&output), "", "{output:?}");
}

#[test]
fn completions_and_the_manual_page_go_to_stdout() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let output = planner(&["completions", shell], None);
        assert!(output.status.success(), "{output:?}");
        let script = stdout(&output);
        assert!(script.contains("serve") && script.contains("bench"), "{shell}: {script}");
    }
    let unknown = planner(&["completions", "tcsh"], None);
    assert_eq!(unknown.status.code(), Some(2), "{unknown:?}");

    let man = planner(&["man"], None);
    assert!(man.status.success(), "{man:?}");
    let page = stdout(&man);
    assert!(page.contains(".TH planner"), "{page}");
    assert!(page.contains("planner\\-ask") && page.contains("planner\\-completions"), "{page}");
}

/// The runtime login's password for this run (the role is cluster-wide: every test agrees).
fn runtime_password() -> String {
    std::env::var("PLANNER_RUNTIME_PASSWORD")
        .ok()
        .filter(|it| !it.is_empty())
        .unwrap_or_else(|| "plannerTestRuntimeLogin0001".to_owned())
}

/// `planner ask` on `url` with the retail registry, no terminal and nothing on stdin.
fn ask_retail(args: &[&str], url: &str) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_planner"));
    command
        .arg("ask")
        .args(["--registry", "../../fixtures/domains/retail/registry.toml"])
        .args(args)
        .env("DATABASE_URL", url)
        .env("PLANNER_RUNTIME_PASSWORD", runtime_password())
        .env("PLANNER_DATA_DIR", "/nonexistent/planner")
        .env("PLANNER_LOG", "warn")
        .stdin(std::process::Stdio::null());
    command.output().unwrap()
}

/// A team's own database (the planner's migrations and the retail schema, no demo data, so no
/// demo tenant): a clarifying question is kept without a tenant, printed as the `needs_input`
/// object a script resumes from, and resumed by `--thread --answer`; `--tenant` takes a name,
/// and an unknown one is a clear error.
#[sqlx::test]
async fn a_clarification_on_a_database_without_the_demo_data_is_kept_and_resumed(pool: PgPool) {
    planner_engine::migrate(&pool).await.unwrap();
    let schema = include_str!("../../../fixtures/domains/retail/migrations/0001_schema.sql");
    sqlx::raw_sql(schema).execute(&pool).await.unwrap();
    let url = url_of(&pool);
    let question = "How did this region do month by month in 2024?";
    // `db status` tells a team's own database by its schemas, not the demo's counts.
    let status = planner(&["db", "status"], Some(&url));
    assert!(status.status.success(), "{status:?}");
    let text = stdout(&status);
    assert!(text.contains("demo dataset: not loaded"), "{text}");
    assert!(text.contains("schema retail: 8 table(s)"), "{text}");
    assert!(!text.contains("awards"), "{text}");

    let asked = ask_retail(&["--json", question], &url);
    assert!(asked.status.success(), "{asked:?}");
    let needs: serde_json::Value = serde_json::from_slice(&asked.stdout).unwrap();
    assert_eq!(needs["status"], "needs_input", "{needs}");
    assert_eq!(needs["missing"], serde_json::json!(["region"]), "{needs}");
    let thread = needs["thread_id"].as_str().unwrap().to_owned();
    let owner: Option<uuid::Uuid> =
        sqlx::query_scalar("SELECT tenant_id FROM admin.thread WHERE id = $1::uuid")
            .bind(&thread)
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!(owner, None, "no demo tenant: the thread is kept for none");

    let resumed =
        ask_retail(&["--json", "--thread", &thread, "--answer", "Pacific Northwest"], &url);
    assert!(resumed.status.success(), "{resumed:?}");
    let answer: serde_json::Value = serde_json::from_slice(&resumed.stdout).unwrap();
    assert_eq!(answer["route"], "single", "{answer}");
    assert_eq!(answer["plan"]["nodes"][0]["args"]["region"], "northwest", "{answer}");

    // Without --json a missing answer is an error that says how to resume.
    let plain = ask_retail(&[question], &url);
    assert_eq!(plain.status.code(), Some(1), "{plain:?}");
    assert!(String::from_utf8_lossy(&plain.stderr).contains("--thread"), "{plain:?}");

    // A tenant by name; an unknown name or id is an error naming the fix.
    let id = planner_exec::create_tenant(&pool, "Harbor Freight Lines").await.unwrap();
    let named = ask_retail(&["--json", "--tenant", "Harbor Freight Lines", question], &url);
    assert!(named.status.success(), "{named:?}");
    let needs: serde_json::Value = serde_json::from_slice(&named.stdout).unwrap();
    let owner: Option<uuid::Uuid> =
        sqlx::query_scalar("SELECT tenant_id FROM admin.thread WHERE id = $1::uuid")
            .bind(needs["thread_id"].as_str().unwrap())
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!(owner, Some(id.0));
    for tenant in ["Harbour Freight Lines", "00000000-0000-0000-0000-0000000000ff"] {
        let unknown = ask_retail(&["--json", "--tenant", tenant, question], &url);
        assert_eq!(unknown.status.code(), Some(1), "{unknown:?}");
        let stderr = String::from_utf8_lossy(&unknown.stderr);
        assert!(
            stderr.contains("no tenant has this") && stderr.contains("--new-tenant"),
            "{stderr}"
        );
    }
}
