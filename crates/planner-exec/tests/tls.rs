//! TLS to PostgreSQL on both connection paths (the sqlx pools and the pipelining `WirePool`)
//! against a cluster from the local PostgreSQL binaries serving a certificate from a test CA and
//! refusing plain TCP: `verify-full` connects, and a wrong CA or host name is refused with advice,
//! as libpq's `sslmode` says.

use std::path::{Path, PathBuf};

use planner_devdb::{Cluster, ClusterConfig, ServerTls, find_bin_dir};
use planner_exec::tls::certificate_advice;
use planner_exec::{Error, WirePool};
use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair};

/// A CA's certificate (PEM) and a server certificate for `localhost` it signed, with its key.
struct TestPki {
    ca_pem: String,
    server: ServerTls,
}

fn ca(name: &str) -> CertifiedIssuer<'static, KeyPair> {
    let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.distinguished_name.push(rcgen::DnType::CommonName, name);
    CertifiedIssuer::self_signed(params, KeyPair::generate().unwrap()).unwrap()
}

fn pki() -> TestPki {
    let ca = ca("planner test CA");
    // The certificate names `localhost` only: 127.0.0.1 is a host it does not name.
    let key = KeyPair::generate().unwrap();
    let cert =
        CertificateParams::new(vec!["localhost".to_owned()]).unwrap().signed_by(&key, &ca).unwrap();
    TestPki {
        ca_pem: ca.pem(),
        server: ServerTls { cert_pem: cert.pem(), key_pem: key.serialize_pem() },
    }
}

struct Fixture {
    cluster: Cluster,
    dir: tempfile::TempDir,
}

impl Fixture {
    async fn start() -> Fixture {
        let pki = pki();
        let bin_dir =
            find_bin_dir(std::env::var("PATH").ok().as_deref(), Path::new("/usr/lib/postgresql"))
                .expect("PostgreSQL server binaries (Debian: postgresql-15) start the TLS server");
        let config = ClusterConfig { bin_dir, dir: None, fast_unsafe: true, tls: Some(pki.server) };
        let cluster =
            tokio::task::spawn_blocking(move || Cluster::start(&config)).await.unwrap().unwrap();
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("ca.pem"), &pki.ca_pem).unwrap();
        std::fs::write(dir.path().join("other-ca.pem"), ca("another CA").pem()).unwrap();
        Fixture { cluster, dir }
    }

    fn file(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// The superuser's URL on `host` with these query parameters.
    fn url(&self, host: &str, query: &str) -> String {
        format!(
            "postgres://postgres:{}@{host}:{}/postgres?{query}",
            self.cluster.password(),
            self.cluster.port()
        )
    }

    fn verify(&self, mode: &str, host: &str, ca: &str) -> String {
        let root = self.file(ca);
        self.url(host, &format!("sslmode={mode}&sslrootcert={}", root.display()))
    }
}

/// Whether the sqlx connection is encrypted, as the server sees it.
async fn sqlx_ssl(url: &str) -> Result<bool, sqlx::Error> {
    let pool = sqlx::postgres::PgPoolOptions::new().max_connections(1).connect(url).await?;
    let (ssl,): (bool,) =
        sqlx::query_as("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")
            .fetch_one(&pool)
            .await?;
    pool.close().await;
    Ok(ssl)
}

async fn wire_check(url: &str) -> Result<(), Error> {
    WirePool::from_url(url, 1)?.check().await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn verify_full_connects_and_a_wrong_ca_or_host_name_is_refused() {
    let fx = Fixture::start().await;

    // The right CA and the name on the certificate: both paths connect, over TLS.
    let good = fx.verify("verify-full", "localhost", "ca.pem");
    assert!(sqlx_ssl(&good).await.unwrap(), "the connection is encrypted");
    wire_check(&good).await.unwrap();
    let pool = sqlx::PgPool::connect(&good).await.unwrap();
    WirePool::from_pg_pool(&pool).check().await.unwrap();
    pool.close().await;

    // Another CA: refused on both paths, saying what to do.
    let wrong_ca = fx.verify("verify-full", "localhost", "other-ca.pem");
    let err = sqlx_ssl(&wrong_ca).await.unwrap_err();
    let advice = certificate_advice(&err).expect("a certificate failure");
    assert!(advice.contains("not signed by a CA in sslrootcert"), "{advice}");
    let err = wire_check(&wrong_ca).await.unwrap_err();
    assert!(matches!(err, Error::Certificate { .. }), "{err:?}");
    assert!(err.to_string().contains("not signed by a CA in sslrootcert"), "{err}");

    // A host the certificate does not name: refused by verify-full, accepted by verify-ca.
    let wrong_host = fx.verify("verify-full", "127.0.0.1", "ca.pem");
    let err = sqlx_ssl(&wrong_host).await.unwrap_err();
    let advice = certificate_advice(&err).expect("a certificate failure");
    assert!(advice.contains("does not name the host"), "{advice}");
    let err = wire_check(&wrong_host).await.unwrap_err();
    assert!(err.to_string().contains("does not name the host"), "{err}");
    let any_name = fx.verify("verify-ca", "127.0.0.1", "ca.pem");
    assert!(sqlx_ssl(&any_name).await.unwrap());
    wire_check(&any_name).await.unwrap();
    // verify-ca still checks the CA.
    let err = wire_check(&fx.verify("verify-ca", "127.0.0.1", "other-ca.pem")).await.unwrap_err();
    assert!(matches!(err, Error::Certificate { .. }), "{err:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn require_and_prefer_encrypt_and_disable_is_refused_by_a_tls_only_server() {
    let fx = Fixture::start().await;
    for mode in ["require", "prefer"] {
        let url = fx.url("127.0.0.1", &format!("sslmode={mode}"));
        assert!(sqlx_ssl(&url).await.unwrap(), "{mode} encrypts");
        wire_check(&url).await.unwrap();
    }
    // The server accepts TCP only over TLS: a plain connection is refused on both paths, so
    // the connections above were encrypted.
    let plain = fx.url("127.0.0.1", "sslmode=disable");
    assert!(sqlx_ssl(&plain).await.is_err());
    assert!(matches!(wire_check(&plain).await, Err(Error::Unavailable)));
}

#[tokio::test]
async fn settings_that_cannot_be_served_fail_before_connecting() {
    let err = wire_check(
        "postgres://u:p@localhost:1/db?sslmode=verify-full&sslrootcert=/nonexistent.pem",
    )
    .await
    .unwrap_err();
    assert!(matches!(err, Error::Tls(_)), "{err:?}");
    assert!(err.to_string().contains("sslrootcert /nonexistent.pem"), "{err}");
    let err = wire_check("postgres://u:p@localhost:1/db?sslmode=sometimes").await.unwrap_err();
    assert!(err.to_string().contains("use disable, prefer, require, verify-ca or verify-full"));
}
