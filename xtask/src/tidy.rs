//! Repository invariants that `rustc` and `clippy` cannot check: the layer table, folder name =
//! package name, inherited lints, a `//!` doc at the top of every Rust file, and one
//! cryptographic module in the `planner` binary (no `ring` in its dependency tree, in the
//! default build or the `fips` one, and AWS-LC's FIPS module in the latter: `cargo tree`), and
//! no circle of imports between the top-level modules of a crate target (`cycles.rs`).
//!
//! It is also a `#[test]`, so a plain `cargo nextest run` catches violations.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use anyhow::{Context, bail};
use xshell::{Shell, cmd};

/// Each workspace crate under `crates/`, its layer, and the workspace crates its normal
/// `[dependencies]` may name. Keep in sync with the table in docs/architecture.md.
const LAYERS: &[(&str, &str, &[&str])] = &[
    ("planner-crypto", "L1", &[]),
    ("planner-graph", "L1", &[]),
    ("planner-registry", "L1", &[]),
    ("planner-knowledge", "L1", &[]),
    ("planner-extract", "L1", &["planner-registry", "planner-knowledge"]),
    ("planner-grammar", "L1", &["planner-registry", "planner-extract"]),
    (
        "planner-infer",
        "L2",
        &["planner-crypto", "planner-registry", "planner-extract", "planner-knowledge"],
    ),
    ("planner-exec", "L2", &["planner-crypto", "planner-registry", "planner-grammar"]),
    ("planner-dataset", "L2", &["planner-exec", "planner-registry"]),
    ("planner-devdb", "L2", &[]),
    (
        "planner-engine",
        "L3",
        &[
            "planner-graph",
            "planner-registry",
            "planner-extract",
            "planner-grammar",
            "planner-infer",
            "planner-exec",
            "planner-dataset",
            "planner-devdb",
            "planner-knowledge",
        ],
    ),
    ("planner-acquire", "L3", &["planner-graph", "planner-infer"]),
    (
        "planner-server",
        "L4",
        &[
            "planner-acquire",
            "planner-crypto",
            "planner-engine",
            "planner-exec",
            "planner-registry",
        ],
    ),
    (
        "planner-cli",
        "L4",
        &[
            "planner-acquire",
            "planner-crypto",
            "planner-engine",
            "planner-server",
            "planner-devdb",
            "planner-dataset",
            "planner-exec",
            "planner-infer",
            "planner-registry",
        ],
    ),
];

/// Runs every check on the repository at the current directory of `sh`.
pub(crate) fn run(sh: &Shell) -> anyhow::Result<()> {
    let root = sh.current_dir();
    let mut errors = check_manifests(&root)?;
    errors.extend(check_sources(sh)?);
    errors.extend(crate::cycles::check(&root)?);
    errors.extend(check_crypto_tree(sh)?);
    if !errors.is_empty() {
        bail!("tidy found {} problem(s):\n  {}", errors.len(), errors.join("\n  "));
    }
    Ok(())
}

/// Folder name = package name, `[lints] workspace = true`, and the layer table, for every crate
/// under `root/crates`.
fn check_manifests(root: &Path) -> anyhow::Result<Vec<String>> {
    let mut errors = Vec::new();
    for dir in crate::crates::crate_dirs(root)? {
        let folder = dir.file_name().unwrap_or_default().to_string_lossy().into_owned();
        let (manifest, name) = crate::crates::manifest(&dir)?;
        if name != folder {
            errors.push(format!(
                "crates/{folder}: package name `{name}` must equal the folder name `{folder}`"
            ));
        }
        let inherits_lints = manifest
            .get("lints")
            .and_then(|it| it.get("workspace"))
            .and_then(|it| it.as_bool())
            .unwrap_or(false);
        if !inherits_lints {
            errors.push(format!("crates/{folder}: add `[lints] workspace = true`"));
        }
        let Some(&(_, layer, allowed)) = LAYERS.iter().find(|(krate, _, _)| *krate == name) else {
            errors.push(format!(
                "crates/{folder}: `{name}` is not in the layer table (xtask/src/tidy.rs LAYERS \
                 and docs/architecture.md)"
            ));
            continue;
        };
        let deps: BTreeMap<String, toml::Value> = manifest
            .get("dependencies")
            .and_then(|it| it.as_table())
            .map(|it| it.clone().into_iter().collect())
            .unwrap_or_default();
        for dep in deps.keys().filter(|it| it.starts_with("planner-")) {
            if !allowed.contains(&dep.as_str()) {
                let dep_layer = LAYERS
                    .iter()
                    .find(|(krate, _, _)| krate == dep)
                    .map_or("unknown layer", |(_, layer, _)| layer);
                errors.push(format!(
                    "layering violation: {name} ({layer}) must not depend on {dep} ({dep_layer}); \
                     {name} may use only: {}",
                    if allowed.is_empty() {
                        "no workspace crate".to_owned()
                    } else {
                        allowed.join(", ")
                    }
                ));
            }
        }
    }
    Ok(errors)
}

/// Every tracked or new Rust file starts with a `//!` doc; no grab-bag module names.
fn check_sources(sh: &Shell) -> anyhow::Result<Vec<String>> {
    const BANNED: &[&str] = &["utils.rs", "util.rs", "helpers.rs", "common.rs", "misc.rs"];
    let files = cmd!(
        sh,
        "git ls-files --cached --others --exclude-standard -- crates tests benches xtask fuzz"
    )
    .quiet()
    .read()?;
    let mut errors = Vec::new();
    for path in files.lines().filter(|it| it.ends_with(".rs")) {
        let Ok(text) = fs::read_to_string(sh.current_dir().join(path)) else { continue };
        let file_name = path.rsplit('/').next().unwrap_or(path);
        if BANNED.contains(&file_name) {
            errors.push(format!("{path}: name the module after what it does"));
        }
        if !text.starts_with("//!") {
            errors.push(format!("{path}: start the file with a `//!` module doc"));
        }
    }
    Ok(errors)
}

/// The crates a crypto library of its own would bring into the `planner` binary: every TLS
/// connection, hash and MAC goes through AWS-LC (planner-crypto).
const OTHER_CRYPTO: &[&str] = &["ring", "openssl", "openssl-sys", "native-tls"];

/// The `planner` binary's normal dependencies, in the default build and the `fips` one (read
/// from `cargo tree`, which resolves without building): no crate of [`OTHER_CRYPTO`], and the
/// `fips` build links aws-lc-fips-sys.
fn check_crypto_tree(sh: &Shell) -> anyhow::Result<Vec<String>> {
    let mut errors = Vec::new();
    for features in [None, Some("planner-cli/fips")] {
        let feature_args: Vec<&str> = features.map(|it| vec!["--features", it]).unwrap_or_default();
        let format = "{p}";
        let tree = cmd!(
            sh,
            "cargo tree --locked -p planner-cli {feature_args...} -e normal --prefix none --format {format}"
        )
        .quiet()
        .read()
        .context("cargo tree of planner-cli")?;
        let names = crate_names(&tree);
        let build = features.map_or("the default build", |_| "the `fips` build");
        for other in OTHER_CRYPTO.iter().filter(|it| names.contains(**it)) {
            errors.push(format!(
                "{build} of `planner` depends on `{other}`: every TLS connection, hash and MAC \
                 must go through planner-crypto (find who pulls it with `cargo tree -p \
                 planner-cli -e features -i {other}`)"
            ));
        }
        if features.is_some() && !names.contains("aws-lc-fips-sys") {
            errors.push(format!("{build} of `planner` does not link aws-lc-fips-sys"));
        }
    }
    Ok(errors)
}

/// The crate names in `cargo tree --prefix none --format {p}` output.
fn crate_names(tree: &str) -> std::collections::BTreeSet<&str> {
    tree.lines().filter_map(|line| line.split_whitespace().next()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tidy() {
        let sh = Shell::new().unwrap();
        sh.change_dir(crate::project_root());
        run(&sh).unwrap();
    }

    fn scratch_crate(root: &Path, name: &str, deps: &str) {
        let dir = root.join("crates").join(name);
        fs::create_dir_all(&dir).unwrap();
        let manifest = format!(
            "[package]\nname = \"{name}\"\n\n[dependencies]\n{deps}\n\n[lints]\nworkspace = true\n"
        );
        fs::write(dir.join("Cargo.toml"), manifest).unwrap();
    }

    #[test]
    fn a_layer_violation_names_both_crates() {
        let root = tempfile::tempdir().unwrap();
        scratch_crate(
            root.path(),
            "planner-graph",
            "planner-engine = { path = \"../planner-engine\" }",
        );
        scratch_crate(root.path(), "planner-engine", "planner-graph.workspace = true");
        let errors = check_manifests(root.path()).unwrap();
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(
            errors[0].contains("planner-graph (L1) must not depend on planner-engine (L3)"),
            "{}",
            errors[0]
        );
    }

    #[test]
    fn crate_names_are_read_from_the_tree() {
        let tree =
            "planner-cli v0.0.0 (/w/crates/planner-cli)\nring v0.17.14\nrustls v0.23.46 (*)\n";
        let names = crate_names(tree);
        assert!(names.contains("ring") && names.contains("rustls"), "{names:?}");
        assert!(!names.contains("v0.17.14"));
    }

    #[test]
    fn folder_name_and_lints_are_checked() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("crates").join("planner-extract");
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("Cargo.toml"), "[package]\nname = \"extract\"\n").unwrap();
        let errors = check_manifests(root.path()).unwrap();
        assert!(errors.iter().any(|it| it.contains("must equal the folder name")), "{errors:?}");
        assert!(errors.iter().any(|it| it.contains("[lints] workspace = true")), "{errors:?}");
        assert!(errors.iter().any(|it| it.contains("not in the layer table")), "{errors:?}");
    }
}
