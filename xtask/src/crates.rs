//! The workspace's crate folders, for the checks that walk them (`tidy`, `cycles`): a leaf
//! module, so that neither check imports the other.

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
