//! The `planner` binary and its cryptographic module: `planner version --json` and `--version`
//! say whether the build is FIPS, and the binary speaks TLS to a PostgreSQL serving a test CA's
//! certificate in `verify-full`, refusing a wrong CA or host name with advice.

use std::path::Path;
use std::process::{Command, Output};

use planner_devdb::{Cluster, ClusterConfig, ServerTls, find_bin_dir};
use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair};

fn planner(args: &[&str], database_url: Option<&str>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_planner"));
    command
        .args(args)
        .env_remove("DATABASE_URL")
        .env_remove("PGSSLMODE")
        .env_remove("PGSSLROOTCERT")
        .env("PLANNER_DATA_DIR", "/nonexistent/planner");
    if let Some(url) = database_url {
        command.env("DATABASE_URL", url);
    }
    command.output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).unwrap()
}

#[test]
fn version_reports_the_build_and_its_module() {
    let fips = cfg!(feature = "fips");
    let output = planner(&["version", "--json"], None);
    assert!(output.status.success(), "{output:?}");
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["fips"], fips, "{report}");
    assert_eq!(report["crypto_module"], if fips { "AWS-LC FIPS" } else { "AWS-LC" }, "{report}");
    assert_eq!(report["self_test_passed"], true, "{report}");
    assert_eq!(report["tls_provider_fips"], fips, "{report}");
    assert_eq!(report["version"], env!("CARGO_PKG_VERSION"), "{report}");
    let module_version = report["crypto_module_version"].as_str().unwrap();
    assert!(module_version.starts_with(|c: char| c.is_ascii_digit()), "{report}");
    assert_eq!(report["fips_module_version"].is_u64(), fips, "{report}");

    let output = planner(&["--version"], None);
    assert!(output.status.success(), "{output:?}");
    let line = text(&output.stdout);
    let mode = if fips { "FIPS mode on" } else { "FIPS mode off" };
    assert!(line.contains(mode) && line.contains(module_version), "{line}");
    assert!(line.contains("self test passed"), "{line}");
}

fn ca(name: &str) -> CertifiedIssuer<'static, KeyPair> {
    let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.distinguished_name.push(rcgen::DnType::CommonName, name);
    CertifiedIssuer::self_signed(params, KeyPair::generate().unwrap()).unwrap()
}

#[test]
fn verify_full_serves_keys_and_a_wrong_ca_or_host_name_fails_closed() {
    let ca_cert = ca("planner test CA");
    let key = KeyPair::generate().unwrap();
    // Named `localhost` only: 127.0.0.1 is a host the certificate does not name.
    let cert = CertificateParams::new(vec!["localhost".to_owned()])
        .unwrap()
        .signed_by(&key, &ca_cert)
        .unwrap();
    let bin_dir =
        find_bin_dir(std::env::var("PATH").ok().as_deref(), Path::new("/usr/lib/postgresql"))
            .expect("PostgreSQL server binaries (Debian: postgresql-15) start the TLS server");
    let tls = ServerTls { cert_pem: cert.pem(), key_pem: key.serialize_pem() };
    let cluster =
        Cluster::start(&ClusterConfig { bin_dir, dir: None, fast_unsafe: true, tls: Some(tls) })
            .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let good_ca = dir.path().join("ca.pem");
    std::fs::write(&good_ca, ca_cert.pem()).unwrap();
    let other_ca = dir.path().join("other-ca.pem");
    std::fs::write(&other_ca, ca("another CA").pem()).unwrap();
    let url = |host: &str, mode: &str, root: &Path| {
        format!(
            "postgres://postgres:{}@{host}:{}/postgres?sslmode={mode}&sslrootcert={}",
            cluster.password(),
            cluster.port(),
            root.display()
        )
    };

    // The owner migrates, creates a tenant's key and reads the status, all in verify-full.
    let good = url("localhost", "verify-full", &good_ca);
    let output = planner(&["db", "migrate"], Some(&good));
    assert!(output.status.success(), "{output:?}");
    let output =
        planner(&["keys", "create", "--tenant", "TLS Tenant", "--new-tenant"], Some(&good));
    assert!(output.status.success(), "{output:?}");
    assert!(text(&output.stdout).contains("pk_"), "{output:?}");
    let output = planner(&["db", "status"], Some(&good));
    assert!(output.status.success(), "{output:?}");
    assert!(text(&output.stdout).contains("live API keys: 1"), "{output:?}");

    // Another CA: refused, saying what to do.
    let output = planner(&["db", "status"], Some(&url("localhost", "verify-full", &other_ca)));
    assert!(!output.status.success(), "{output:?}");
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("hint: the server's certificate is not signed by a CA in sslrootcert"),
        "{stderr}"
    );
    assert!(text(&output.stdout).is_empty(), "{output:?}");

    // A host the certificate does not name: refused by verify-full, served by verify-ca.
    let output = planner(&["db", "status"], Some(&url("127.0.0.1", "verify-full", &good_ca)));
    assert!(!output.status.success(), "{output:?}");
    let stderr = text(&output.stderr);
    assert!(stderr.contains("hint: the server's certificate does not name the host"), "{stderr}");
    let output = planner(&["db", "status"], Some(&url("127.0.0.1", "verify-ca", &good_ca)));
    assert!(output.status.success(), "{output:?}");

    // A root certificate file that is not there: refused before any connection.
    let missing = dir.path().join("missing.pem");
    let output = planner(&["db", "status"], Some(&url("localhost", "verify-full", &missing)));
    assert!(!output.status.success(), "{output:?}");
    assert!(text(&output.stderr).contains("missing.pem"), "{output:?}");
}
