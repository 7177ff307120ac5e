//! What the local images share: a Debian bookworm root file system made with debootstrap from
//! Debian's packages (no container registry is needed), slimmed, and imported into the Docker
//! engine with `docker import`. `pg_image` (`planner-postgres:15`) and `image` (`planner`) use it.

use std::fs;
use std::path::Path;

use anyhow::Context;
use xshell::{Shell, cmd};

/// Whether the Docker engine has `image`.
pub(crate) fn has_image(sh: &Shell, image: &str) -> bool {
    cmd!(sh, "docker image inspect {image}").quiet().ignore_stdout().ignore_stderr().run().is_ok()
}

/// The size of `image` in MB, 0 when it cannot be read.
pub(crate) fn image_mb(sh: &Shell, image: &str) -> u64 {
    let format = "{{.Size}}";
    let size = cmd!(sh, "docker image inspect --format {format} {image}")
        .quiet()
        .read()
        .unwrap_or_default();
    size.trim().parse::<u64>().map_or(0, |b| b / 1_000_000)
}

/// Installs debootstrap from Debian's packages when the machine lacks it.
fn ensure_debootstrap(sh: &Shell) -> anyhow::Result<()> {
    if cmd!(sh, "which debootstrap").quiet().ignore_stdout().run().is_err() {
        eprintln!("xtask: installing debootstrap from Debian's packages");
        cmd!(sh, "apt-get update -qq").run()?;
        cmd!(sh, "apt-get install -y -qq debootstrap")
            .env("DEBIAN_FRONTEND", "noninteractive")
            .run()?;
    }
    Ok(())
}

/// A fresh minbase bookworm root file system at `root` with the packages `include` (comma
/// separated, debootstrap's `--include`), the apt caches, documentation and locales removed.
pub(crate) fn debootstrap(sh: &Shell, root: &Path, include: &str) -> anyhow::Result<()> {
    ensure_debootstrap(sh)?;
    if root.exists() {
        cmd!(sh, "rm -rf {root}").run()?;
    }
    fs::create_dir_all(root).with_context(|| format!("creating {}", root.display()))?;
    let mirror = debian_mirror();
    eprintln!("xtask: debootstrap bookworm ({include}) from {mirror} (about a minute)");
    let include = format!("--include={include}");
    cmd!(sh, "debootstrap --variant=minbase {include} bookworm {root} {mirror}")
        .quiet()
        .ignore_stdout()
        .run()
        .context("debootstrap failed (is Debian's package mirror reachable?)")?;
    let script = r#"
        set -e
        rm -rf var/cache/apt/archives/*.deb var/cache/apt/*.bin var/lib/apt/lists/*
        find usr/share/doc -type f ! -name copyright -delete
        find usr/share/doc -type d -empty -delete
        rm -rf usr/share/man usr/share/info usr/share/locale/* usr/share/i18n usr/share/lintian
        rm -rf var/log/*.log var/log/apt
        : > etc/resolv.conf
    "#;
    let _dir = sh.push_dir(root);
    cmd!(sh, "sh -c {script}").run()?;
    Ok(())
}

/// The first `URIs:` of the machine's apt sources, else Debian's main mirror.
fn debian_mirror() -> String {
    let sources = fs::read_dir("/etc/apt/sources.list.d")
        .into_iter()
        .flatten()
        .filter_map(|it| it.ok())
        .filter_map(|it| fs::read_to_string(it.path()).ok());
    for text in sources {
        for line in text.lines() {
            if let Some(uri) = line.strip_prefix("URIs:") {
                let uri = uri.split_whitespace().next().unwrap_or("");
                if uri.ends_with("/debian") || uri.ends_with("/debian/") {
                    return uri.to_owned();
                }
            }
        }
    }
    "http://deb.debian.org/debian".to_owned()
}

/// Imports the tree at `root` as `image`, with the Dockerfile instructions `changes` (`ENV ...`,
/// `ENTRYPOINT [...]`).
pub(crate) fn import(sh: &Shell, root: &Path, image: &str, changes: &[&str]) -> anyhow::Result<()> {
    let root = root.display().to_string();
    let changes: String =
        changes.iter().map(|it| format!(" --change '{}'", it.replace('\'', "'\\''"))).collect();
    let script = format!(
        "set -o pipefail; tar -C '{root}' --numeric-owner --exclude='./dev/*' --exclude='./proc/*' \
         --exclude='./sys/*' -c . | docker import{changes} - '{image}' >/dev/null"
    );
    cmd!(sh, "bash -c {script}").run().context("docker import failed")?;
    Ok(())
}
