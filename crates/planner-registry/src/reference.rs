//! The reference registry (`fixtures/registry/capture.toml`: federal capture plus a cleared
//! staffing bench) and the vocabulary files beside it, built into the crate, so that the
//! registry `planner` answers with by default loads with no file system.

use crate::{Registry, Result};

/// The registry file's text.
pub const TEXT: &str = include_str!("../../../fixtures/registry/capture.toml");

/// The agency dictionary its `agency` kind reads (`agencies.csv`: `value,aliases`).
pub const AGENCIES: &str = include_str!("../../../fixtures/registry/agencies.csv");

/// The NAICS 2022 list its `naics` kind reads (`naics2022.csv`: `code,title`).
pub const NAICS: &str = include_str!("../../../fixtures/registry/naics2022.csv");

/// A file beside the reference registry, by the name the registry gives it.
pub fn files(name: &str) -> std::result::Result<String, String> {
    match name {
        "agencies.csv" => Ok(AGENCIES.to_owned()),
        "naics2022.csv" => Ok(NAICS.to_owned()),
        other => Err(format!("{other}: not a file beside the reference registry")),
    }
}

/// The reference registry, loaded with its files.
pub fn registry() -> Result<Registry> {
    Registry::from_toml_with(TEXT, "capture.toml", &files)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_reference_registry_loads_with_its_files() {
        let registry =
            super::registry().unwrap_or_else(|err| panic!("{}", err.located().join("\n")));
        assert_eq!(registry.kinds().len(), 7);
        assert!(super::files("other.csv").is_err());
    }
}
