//! The workspace's crate folders and their manifests, for the checks that walk them (`tidy`,
//! `cycles`): a leaf module, so that neither check imports the other.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::Context;

/// The folders under `root/crates` that hold a `Cargo.toml`, sorted.
pub(crate) fn crate_dirs(root: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let crates = root.join("crates");
    let mut dirs: Vec<PathBuf> = fs::read_dir(&crates)
        .with_context(|| format!("reading {}", crates.display()))?
        .filter_map(|it| it.ok())
        .map(|it| it.path())
        .filter(|it| it.join("Cargo.toml").is_file())
        .collect();
    dirs.sort();
    Ok(dirs)
}

/// The parsed `Cargo.toml` of the package in `dir`, and its package name (empty when it has
/// none).
pub(crate) fn manifest(dir: &Path) -> anyhow::Result<(toml::Table, String)> {
    let path = dir.join("Cargo.toml");
    let text = fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let manifest: toml::Table =
        toml::from_str(&text).with_context(|| format!("parsing {}", path.display()))?;
    let name = manifest
        .get("package")
        .and_then(|it| it.get("name"))
        .and_then(|it| it.as_str())
        .unwrap_or_default()
        .to_owned();
    Ok((manifest, name))
}
