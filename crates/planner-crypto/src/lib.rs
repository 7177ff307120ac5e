//! The one cryptographic module every TLS connection, hash and MAC of the planner goes through:
//! AWS-LC, through aws-lc-rs.
//!
//! - The default build links AWS-LC's ordinary build (aws-lc-sys); the `fips` feature links its
//!   FIPS 140 module instead (aws-lc-fips-sys, which needs Go and CMake to build) and turns on
//!   rustls's FIPS provider on it. Cargo unifies features, so under `fips` every user of rustls
//!   or aws-lc-rs in the build (the PostgreSQL clients, the model client, the Docker client) is
//!   on the FIPS module: the two builds run the same code and differ only in the module.
//! - [`provider`] is the rustls provider on the module (under `fips`, only FIPS-approved cipher
//!   suites and key exchanges); [`init`] installs it as the process default, so a TLS client
//!   that builds its configuration from the default uses it too.
//! - [`sha256`] is the project's one digest (API keys are stored as their SHA-256), and
//!   [`random`] its generator of secrets (an API key's 256 bits).
//! - [`init`] checks the module once at start: under `fips` it refuses a module that is not in
//!   FIPS mode or whose known-answer self tests fail, and says why; [`Module`] is what
//!   `planner --version`, `planner version --json` and the `planner_build_info` metric report.
//!
//! docs/fips.md says what is inside the module's boundary and what is not.

use std::fmt;
use std::sync::{Arc, OnceLock};

pub use rustls;
use rustls::crypto::CryptoProvider;

/// Whether this build links AWS-LC's FIPS module (the `fips` feature).
pub const FIPS_BUILD: bool = cfg!(feature = "fips");

/// What the build's cryptographic module is and how its start went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Module {
    /// Whether the module runs in FIPS mode (only a `fips` build can).
    pub fips: bool,
    /// The module's name: `AWS-LC FIPS` or `AWS-LC`.
    pub name: &'static str,
    /// The AWS-LC release linked, as the library reports it (`3.0.0`).
    pub version: &'static str,
    /// The FIPS module's version number, when the build is of an AWS-LC FIPS branch.
    pub fips_module_version: Option<u32>,
    /// Whether AWS-LC's known-answer self tests passed when the process checked.
    pub self_test_passed: bool,
    /// Whether the rustls provider reports itself as FIPS (every algorithm it offers approved).
    pub tls_provider_fips: bool,
}

impl Module {
    /// One line for `planner --version`.
    pub fn summary(&self) -> String {
        format!(
            "crypto module {} {}, FIPS mode {}, self test {}",
            self.name,
            self.version,
            if self.fips { "on" } else { "off" },
            if self.self_test_passed { "passed" } else { "failed" },
        )
    }
}

/// Why a `fips` build refuses to start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// The linked module is not in FIPS mode.
    NotFipsMode(String),
    /// The module's self tests failed.
    SelfTestFailed,
    /// The rustls provider offers an algorithm outside the approved set.
    ProviderNotFips,
    /// The module's random generator failed.
    Random,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::NotFipsMode(reason) => write!(
                f,
                "this is a FIPS build, but AWS-LC is not in FIPS mode ({reason}); the module's \
                 integrity check or its build is at fault: rebuild with `--features fips` on a \
                 supported platform (docs/fips.md)"
            ),
            Error::SelfTestFailed => write!(
                f,
                "this is a FIPS build, but AWS-LC's power-on self tests failed: the module must \
                 not be used; reinstall the binary (docs/fips.md)"
            ),
            Error::Random => write!(f, "AWS-LC's random generator failed"),
            Error::ProviderNotFips => write!(
                f,
                "this is a FIPS build, but the TLS provider offers algorithms outside the FIPS \
                 approved set (docs/fips.md)"
            ),
        }
    }
}

impl std::error::Error for Error {}

/// The rustls provider on the module, shared: under `fips`, rustls's FIPS provider (approved
/// cipher suites and key exchanges only).
pub fn provider() -> Arc<CryptoProvider> {
    static PROVIDER: OnceLock<Arc<CryptoProvider>> = OnceLock::new();
    Arc::clone(PROVIDER.get_or_init(|| Arc::new(rustls::crypto::aws_lc_rs::default_provider())))
}

/// The module's state, checked once per process (the self tests run on the first call).
pub fn module() -> &'static Module {
    static MODULE: OnceLock<Module> = OnceLock::new();
    MODULE.get_or_init(|| {
        aws_lc_rs::init();
        let fips = aws_lc_rs::try_fips_mode().is_ok();
        Module {
            fips,
            name: if FIPS_BUILD { "AWS-LC FIPS" } else { "AWS-LC" },
            version: aws_lc_rs::awslc_version(),
            fips_module_version: aws_lc_rs::fips_version(),
            self_test_passed: aws_lc_rs::try_fips_self_test().is_ok(),
            tls_provider_fips: provider().fips(),
        }
    })
}

/// Checks the module and installs [`provider`] as the process's default rustls provider. A
/// `fips` build whose module is not in FIPS mode, failed its self tests or whose TLS provider
/// is not FIPS is an error: the caller must not start. The default build always starts.
pub fn init() -> Result<&'static Module, Error> {
    let module = module();
    if FIPS_BUILD {
        if let Err(reason) = aws_lc_rs::try_fips_mode() {
            return Err(Error::NotFipsMode(reason.to_owned()));
        }
        if !module.self_test_passed {
            return Err(Error::SelfTestFailed);
        }
        if !module.tls_provider_fips {
            return Err(Error::ProviderNotFips);
        }
    }
    install_provider();
    Ok(module)
}

/// Installs [`provider`] as the process's default rustls provider, once (later calls do
/// nothing): a TLS client that takes the default, as reqwest does, then uses the module.
pub fn install_provider() {
    static INSTALLED: OnceLock<()> = OnceLock::new();
    INSTALLED.get_or_init(|| {
        // The provider is the only one this project installs, and the `OnceLock` installs it
        // once: an error would mean another was installed first, and then that one stays.
        let _first = CryptoProvider::install_default(provider().as_ref().clone());
    });
}

/// `N` random bytes from the module's generator (AWS-LC's DRBG, an approved one in the FIPS
/// module): for secrets such as API keys.
pub fn random<const N: usize>() -> Result<[u8; N], Error> {
    let mut out = [0; N];
    aws_lc_rs::rand::fill(&mut out).map_err(|_| Error::Random)?;
    Ok(out)
}

/// The SHA-256 of `bytes`, computed by the module.
pub fn sha256(bytes: &[u8]) -> [u8; 32] {
    let digest = aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, bytes);
    let mut out = [0; 32];
    out.copy_from_slice(digest.as_ref());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_is_the_standard_digest() {
        // FIPS 180-2's test vectors.
        let hex = |bytes: [u8; 32]| bytes.iter().map(|b| format!("{b:02x}")).collect::<String>();
        assert_eq!(
            hex(sha256(b"abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(
            hex(sha256(b"")),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }

    #[test]
    fn random_bytes_differ_between_calls() {
        let a: [u8; 32] = random().unwrap();
        let b: [u8; 32] = random().unwrap();
        assert_ne!(a, b);
        assert_ne!(a, [0; 32]);
    }

    #[test]
    fn the_module_reports_the_build_it_is() {
        let module = init().expect("the module starts");
        assert_eq!(module.fips, FIPS_BUILD);
        assert_eq!(module.tls_provider_fips, FIPS_BUILD);
        assert!(module.self_test_passed);
        assert!(module.version.chars().next().is_some_and(|c| c.is_ascii_digit()));
        assert_eq!(module.name, if FIPS_BUILD { "AWS-LC FIPS" } else { "AWS-LC" });
        assert_eq!(module.fips_module_version.is_some(), FIPS_BUILD);
        // The provider is installed as the process default.
        let default = CryptoProvider::get_default().expect("a default provider");
        assert_eq!(default.fips(), FIPS_BUILD);
    }

    #[test]
    fn the_provider_offers_only_approved_suites_in_a_fips_build() {
        let provider = provider();
        if FIPS_BUILD {
            assert!(provider.cipher_suites.iter().all(|suite| suite.fips()));
            assert!(provider.kx_groups.iter().all(|group| group.fips()));
        } else {
            // The default build offers ChaCha20-Poly1305 as well, outside the approved set.
            assert!(provider.cipher_suites.iter().any(|suite| !suite.fips()));
        }
    }
}
