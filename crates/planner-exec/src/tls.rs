//! TLS to PostgreSQL: libpq's `sslmode` and `sslrootcert`, on rustls over the build's one
//! cryptographic module ([`planner_crypto::provider`]).
//!
//! The sqlx pools honour the same two parameters themselves (sqlx's rustls support on
//! aws-lc-rs, which under the `fips` feature is the same FIPS module); this module serves the
//! pipelining [`WirePool`](crate::WirePool), whose tokio-postgres client knows only `disable`,
//! `prefer` and `require` and no root certificate, and it makes the two paths agree:
//!
//! | `sslmode` | TLS | the server's certificate |
//! | --- | --- | --- |
//! | `disable` | never | - |
//! | `prefer` (the default) | when the server offers it | not checked |
//! | `require` | always | not checked |
//! | `verify-ca` | always | signed by a CA in `sslrootcert` |
//! | `verify-full` | always | signed by a CA in `sslrootcert`, and naming the host connected to |
//!
//! `sslrootcert` is a PEM file of CA certificates; without it, the verifying modes trust the
//! public web roots (as sqlx does), which a private CA is not among. `PGSSLMODE` and
//! `PGSSLROOTCERT` apply when the URL does not say. A Unix socket never uses TLS (as in libpq).
//! The handshake offers no channel binding (SCRAM-SHA-256, not `-PLUS`): see docs/fips.md.

use std::future::Future;
use std::io;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::pki_types::pem::PemObject as _;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{
    CertificateError, ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme,
};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio_postgres::tls::{ChannelBinding, TlsConnect};

use planner_crypto::rustls;

/// libpq's `sslmode`, less `allow` (plain first, TLS on refusal), which no path here supports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SslMode {
    /// No TLS.
    Disable,
    /// TLS when the server offers it; the certificate is not checked.
    Prefer,
    /// TLS always; the certificate is not checked.
    Require,
    /// TLS always; the certificate must chain to `sslrootcert`.
    VerifyCa,
    /// TLS always; the certificate must chain to `sslrootcert` and name the host.
    VerifyFull,
}

impl SslMode {
    /// libpq's name of the mode.
    pub fn as_str(self) -> &'static str {
        match self {
            SslMode::Disable => "disable",
            SslMode::Prefer => "prefer",
            SslMode::Require => "require",
            SslMode::VerifyCa => "verify-ca",
            SslMode::VerifyFull => "verify-full",
        }
    }

    /// Parses libpq's name.
    pub fn parse(text: &str) -> Result<SslMode, TlsError> {
        Ok(match text {
            "disable" => SslMode::Disable,
            "prefer" => SslMode::Prefer,
            "require" => SslMode::Require,
            "verify-ca" => SslMode::VerifyCa,
            "verify-full" => SslMode::VerifyFull,
            other => return Err(TlsError::Mode(other.to_owned())),
        })
    }
}

/// A database URL's TLS settings that cannot be served.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TlsError {
    /// An `sslmode` this client does not know.
    #[error("sslmode={0} is not supported: use disable, prefer, require, verify-ca or verify-full")]
    Mode(String),
    /// The root certificate file cannot be read or holds no certificate.
    #[error("sslrootcert {path}: {reason}")]
    RootCert {
        /// The file named.
        path: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The cryptographic module's TLS provider cannot make a client configuration.
    #[error("the TLS provider cannot serve a client: {0}")]
    Provider(String),
    /// A TLS parameter this client does not implement.
    #[error("{0} is not supported by the planner's PostgreSQL client: remove it from the URL")]
    Unsupported(&'static str),
}

/// How a connection to one server uses TLS.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PgTls {
    /// The mode.
    pub mode: SslMode,
    /// The CA certificates a verifying mode trusts (a PEM file), else the public web roots.
    pub root_cert: Option<PathBuf>,
}

impl PgTls {
    /// The TLS settings of a `postgres://` URL (`sslmode`, `sslrootcert`; else `PGSSLMODE` and
    /// `PGSSLROOTCERT`; else `prefer`), and the URL without them, for a client that does not
    /// know them (tokio-postgres).
    pub fn split_url(url: &str) -> Result<(PgTls, String), TlsError> {
        Self::split_url_with(url, |name| std::env::var(name).ok())
    }

    /// [`PgTls::split_url`] with the environment given.
    pub fn split_url_with(
        url: &str,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<(PgTls, String), TlsError> {
        let (base, query) = url.split_once('?').unwrap_or((url, ""));
        let mut mode = None;
        let mut root_cert = None;
        let mut kept = Vec::new();
        for pair in query.split('&').filter(|pair| !pair.is_empty()) {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            let decoded = || -> String {
                percent_encoding::percent_decode_str(value).decode_utf8_lossy().into_owned()
            };
            match key {
                "sslmode" | "ssl-mode" => mode = Some(SslMode::parse(&decoded())?),
                "sslrootcert" | "ssl-root-cert" | "ssl-ca" => {
                    root_cert = Some(PathBuf::from(decoded()));
                }
                "sslcert" | "ssl-cert" | "sslkey" | "ssl-key" => {
                    return Err(TlsError::Unsupported("a client certificate (sslcert, sslkey)"));
                }
                "sslnegotiation" => {
                    return Err(TlsError::Unsupported("sslnegotiation"));
                }
                _ => kept.push(pair),
            }
        }
        let mode = match mode {
            Some(mode) => mode,
            None => match env("PGSSLMODE") {
                Some(text) => SslMode::parse(&text)?,
                None => SslMode::Prefer,
            },
        };
        let root_cert = root_cert.or_else(|| env("PGSSLROOTCERT").map(PathBuf::from));
        let rest =
            if kept.is_empty() { base.to_owned() } else { format!("{base}?{}", kept.join("&")) };
        Ok((PgTls { mode, root_cert }, rest))
    }

    /// The TLS settings sqlx holds for a pool's connections (what it parsed from the URL and
    /// the environment), for a [`WirePool`](crate::WirePool) to the same server.
    pub fn from_sqlx(options: &sqlx::postgres::PgConnectOptions) -> Result<PgTls, TlsError> {
        use sqlx::ConnectOptions as _;
        use sqlx::postgres::PgSslMode;
        let mode = match options.get_ssl_mode() {
            PgSslMode::Disable => SslMode::Disable,
            PgSslMode::Prefer => SslMode::Prefer,
            PgSslMode::Require => SslMode::Require,
            PgSslMode::VerifyCa => SslMode::VerifyCa,
            PgSslMode::VerifyFull => SslMode::VerifyFull,
            PgSslMode::Allow => return Err(TlsError::Mode("allow".to_owned())),
        };
        // sqlx shows its root certificate only in its URL: `file: PATH`, or the PEM inline.
        let url = options.to_url_lossy();
        let root = url.query_pairs().find(|(key, _)| key == "sslrootcert").map(|(_, v)| v);
        let root_cert = match root {
            None => None,
            Some(value) => match value.strip_prefix("file: ") {
                Some(path) => Some(PathBuf::from(path)),
                None => return Err(TlsError::Unsupported("an inline PEM sslrootcert")),
            },
        };
        Ok(PgTls { mode, root_cert })
    }

    /// tokio-postgres's mode for these settings (the verifying modes require TLS).
    pub(crate) fn wire_mode(&self) -> tokio_postgres::config::SslMode {
        match self.mode {
            SslMode::Disable => tokio_postgres::config::SslMode::Disable,
            SslMode::Prefer => tokio_postgres::config::SslMode::Prefer,
            SslMode::Require | SslMode::VerifyCa | SslMode::VerifyFull => {
                tokio_postgres::config::SslMode::Require
            }
        }
    }

    /// The rustls configuration for these settings, on the module's provider; `None` for
    /// `disable`. The root certificates are read here, so a bad file fails at start.
    pub fn client_config(&self) -> Result<Option<Arc<ClientConfig>>, TlsError> {
        let provider = planner_crypto::provider();
        let builder = ClientConfig::builder_with_provider(Arc::clone(&provider))
            .with_safe_default_protocol_versions()
            .map_err(|err| TlsError::Provider(err.to_string()))?;
        let verifier: Arc<dyn ServerCertVerifier> = match self.mode {
            SslMode::Disable => return Ok(None),
            SslMode::Prefer | SslMode::Require => Arc::new(Unchecked { provider }),
            SslMode::VerifyCa | SslMode::VerifyFull => {
                let roots = Arc::new(self.roots()?);
                let webpki = WebPkiServerVerifier::builder_with_provider(roots, provider)
                    .build()
                    .map_err(|err| TlsError::RootCert {
                    path: self.root_path(),
                    reason: err.to_string(),
                })?;
                if self.mode == SslMode::VerifyFull {
                    let full: Arc<dyn ServerCertVerifier> = webpki;
                    full
                } else {
                    Arc::new(AnyName { inner: webpki })
                }
            }
        };
        let config =
            builder.dangerous().with_custom_certificate_verifier(verifier).with_no_client_auth();
        Ok(Some(Arc::new(config)))
    }

    fn root_path(&self) -> String {
        self.root_cert
            .as_deref()
            .map(Path::display)
            .map(|path| path.to_string())
            .unwrap_or_default()
    }

    fn roots(&self) -> Result<RootCertStore, TlsError> {
        let Some(path) = &self.root_cert else {
            return Ok(RootCertStore::from_iter(webpki_roots::TLS_SERVER_ROOTS.iter().cloned()));
        };
        let bad = |reason: String| TlsError::RootCert { path: self.root_path(), reason };
        let mut store = RootCertStore::empty();
        let certs = CertificateDer::pem_file_iter(path).map_err(|err| bad(err.to_string()))?;
        for cert in certs {
            let cert = cert.map_err(|err| bad(err.to_string()))?;
            store.add(cert).map_err(|err| bad(format!("not a usable CA certificate: {err}")))?;
        }
        if store.is_empty() {
            return Err(bad("the file holds no PEM certificate".to_owned()));
        }
        Ok(store)
    }
}

/// Checks a URL's TLS settings before anything connects with it: a bad `sslmode`, or an
/// `sslrootcert` that cannot be read or holds no certificate, is an error naming it (sqlx would
/// report only the I/O error, without the file).
pub fn check_url(url: &str) -> Result<(), TlsError> {
    let (tls, _) = PgTls::split_url(url)?;
    tls.client_config().map(|_| ())
}

/// What a failed connection's error says about the server's certificate, as advice for the
/// user; `None` when the failure is not a certificate's.
pub fn certificate_advice(error: &(dyn std::error::Error + 'static)) -> Option<&'static str> {
    let mut cause = Some(error);
    while let Some(current) = cause {
        let found = current.downcast_ref::<rustls::Error>().or_else(|| {
            let io = current.downcast_ref::<io::Error>()?;
            io.get_ref()?.downcast_ref::<rustls::Error>()
        });
        if let Some(rustls::Error::InvalidCertificate(reason)) = found {
            return Some(match reason {
                CertificateError::UnknownIssuer | CertificateError::BadSignature => {
                    "the server's certificate is not signed by a CA in sslrootcert: point \
                     sslrootcert at the CA that signed it"
                }
                CertificateError::NotValidForName
                | CertificateError::NotValidForNameContext { .. } => {
                    "the server's certificate does not name the host in the URL: connect by a \
                     name the certificate holds, or use sslmode=verify-ca"
                }
                CertificateError::Expired | CertificateError::ExpiredContext { .. } => {
                    "the server's certificate has expired"
                }
                _ => "the server's certificate was refused",
            });
        }
        cause = current.source();
    }
    None
}

/// `prefer` and `require`: the handshake's signatures are checked with the module, the
/// certificate is not (libpq's meaning of these modes).
#[derive(Debug)]
struct Unchecked {
    provider: Arc<rustls::crypto::CryptoProvider>,
}

impl ServerCertVerifier for Unchecked {
    fn verify_server_cert(
        &self,
        _: &CertificateDer<'_>,
        _: &[CertificateDer<'_>],
        _: &ServerName<'_>,
        _: &[u8],
        _: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider.signature_verification_algorithms.supported_schemes()
    }
}

/// `verify-ca`: the chain is checked, the name is not.
#[derive(Debug)]
struct AnyName {
    inner: Arc<WebPkiServerVerifier>,
}

impl ServerCertVerifier for AnyName {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        match self.inner.verify_server_cert(end_entity, intermediates, server_name, ocsp, now) {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.inner.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.inner.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.inner.supported_verify_schemes()
    }
}

/// tokio-postgres's TLS hook on rustls, for one host.
pub(crate) struct RustlsConnect {
    pub(crate) config: Arc<ClientConfig>,
    pub(crate) server_name: ServerName<'static>,
}

impl<S> TlsConnect<S> for RustlsConnect
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    type Stream = RustlsStream<S>;
    type Error = io::Error;
    type Future = Pin<Box<dyn Future<Output = io::Result<RustlsStream<S>>> + Send>>;

    fn connect(self, stream: S) -> Self::Future {
        Box::pin(async move {
            let connector = tokio_rustls::TlsConnector::from(self.config);
            let stream = connector.connect(self.server_name, stream).await?;
            Ok(RustlsStream(Box::new(stream)))
        })
    }
}

/// A TLS stream to the server.
pub(crate) struct RustlsStream<S>(Box<tokio_rustls::client::TlsStream<S>>);

impl<S> tokio_postgres::tls::TlsStream for RustlsStream<S>
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    fn channel_binding(&self) -> ChannelBinding {
        ChannelBinding::none()
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> AsyncRead for RustlsStream<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut *self.0).poll_read(cx, buf)
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> AsyncWrite for RustlsStream<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut *self.0).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut *self.0).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut *self.0).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(url: &str) -> Result<(PgTls, String), TlsError> {
        PgTls::split_url_with(url, |_| None)
    }

    #[test]
    fn the_url_says_the_mode_and_the_root_certificate() {
        let (tls, rest) =
            split("postgres://u:p@db:5432/planner?sslmode=verify-full&sslrootcert=%2Ftmp%2Fca.pem&application_name=x")
                .unwrap();
        assert_eq!(tls.mode, SslMode::VerifyFull);
        assert_eq!(tls.root_cert.as_deref(), Some(Path::new("/tmp/ca.pem")));
        assert_eq!(rest, "postgres://u:p@db:5432/planner?application_name=x");
        let (tls, rest) = split("postgres://db/planner").unwrap();
        assert_eq!(
            (tls.mode, tls.root_cert, rest.as_str()),
            (SslMode::Prefer, None, "postgres://db/planner")
        );
    }

    #[test]
    fn the_environment_fills_in_what_the_url_does_not_say() {
        let env = |name: &str| match name {
            "PGSSLMODE" => Some("require".to_owned()),
            "PGSSLROOTCERT" => Some("/etc/ca.pem".to_owned()),
            _ => None,
        };
        let (tls, _) = PgTls::split_url_with("postgres://db/planner", env).unwrap();
        assert_eq!(tls.mode, SslMode::Require);
        assert_eq!(tls.root_cert.as_deref(), Some(Path::new("/etc/ca.pem")));
        let (tls, _) = PgTls::split_url_with("postgres://db/p?sslmode=disable", env).unwrap();
        assert_eq!(tls.mode, SslMode::Disable);
    }

    #[test]
    fn unknown_modes_and_client_certificates_are_refused_with_the_fix() {
        let err = split("postgres://db/p?sslmode=allow").unwrap_err();
        assert!(err.to_string().contains("use disable, prefer, require, verify-ca or verify-full"));
        let err = split("postgres://db/p?sslmode=verify-full&sslcert=/c.pem").unwrap_err();
        assert!(err.to_string().contains("remove it from the URL"), "{err}");
    }

    #[test]
    fn a_missing_or_empty_root_certificate_fails_at_start() {
        let tls =
            PgTls { mode: SslMode::VerifyFull, root_cert: Some("/nonexistent/ca.pem".into()) };
        let err = tls.client_config().unwrap_err();
        assert!(err.to_string().starts_with("sslrootcert /nonexistent/ca.pem: "), "{err}");
        let dir = std::env::temp_dir().join(format!("planner-tls-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let empty = dir.join("empty.pem");
        std::fs::write(&empty, "not a certificate\n").unwrap();
        let tls = PgTls { mode: SslMode::VerifyCa, root_cert: Some(empty) };
        let err = tls.client_config().unwrap_err();
        assert!(err.to_string().contains("holds no PEM certificate"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn check_url_names_the_root_certificate_it_cannot_read() {
        let err = check_url("postgres://db/p?sslmode=verify-full&sslrootcert=/nonexistent/x.pem")
            .unwrap_err();
        assert!(err.to_string().contains("/nonexistent/x.pem"), "{err}");
        check_url("postgres://db/p?sslmode=require").unwrap();
    }

    #[test]
    fn every_mode_but_disable_builds_a_configuration() {
        for mode in [SslMode::Prefer, SslMode::Require, SslMode::VerifyCa, SslMode::VerifyFull] {
            let tls = PgTls { mode, root_cert: None };
            assert!(tls.client_config().unwrap().is_some(), "{}", mode.as_str());
        }
        assert!(
            PgTls { mode: SslMode::Disable, root_cert: None }.client_config().unwrap().is_none()
        );
    }
}
