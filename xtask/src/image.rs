//! `cargo xtask image [--profile release|dev] [--binary PATH] [--force]`: builds the local image
//! `planner:latest` without a container registry: the base `planner-base:bookworm` (a minbase Debian bookworm root
//! file system with ca-certificates and an unprivileged `planner` user, made by debootstrap from
//! Debian's packages like the PostgreSQL image, see `rootfs`; built once and kept in the engine)
//! plus the `planner` binary of the chosen profile (release by default; `--binary` takes one
//! already built, with no cargo build). The host is bookworm
//! too, so the binary's glibc matches.
//!
//! The image carries the SHA-256 of its binary as the label `planner.binary.sha256`; when the
//! engine already has an image for the same binary, nothing is done. `cargo xtask test` and `ci`
//! call [`from_binary`] with the debug binary their test build has just made, so CI compiles
//! nothing more for the image.

use std::path::Path;
use std::time::Instant;

use anyhow::{Context, bail};
use xshell::{Shell, cmd};

use crate::rootfs;

/// The image the scale-out test runs its replicas from.
pub(crate) const IMAGE: &str = "planner:latest";
/// The base: Debian bookworm minbase, ca-certificates, the `planner` user.
const BASE: &str = "planner-base:bookworm";
/// The label holding the SHA-256 of the image's binary.
const LABEL: &str = "planner.binary.sha256";

/// `cargo xtask image` with its arguments.
pub(crate) fn run(sh: &Shell, args: &[String]) -> anyhow::Result<()> {
    let mut profile = "release";
    let mut force = false;
    let mut binary = None;
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "--force" => force = true,
            "--binary" => binary = rest.next().map(std::path::PathBuf::from),
            "--profile" => match rest.next().map(String::as_str) {
                Some(it @ ("release" | "dev")) => profile = it,
                other => bail!("--profile takes release or dev, not {other:?}"),
            },
            other => bail!(
                "unknown argument `{other}` (usage: image [--profile release|dev] [--binary \
                 PATH] [--force])"
            ),
        }
    }
    if let Some(binary) = binary {
        return from_binary(sh, &binary, force);
    }
    cmd!(sh, "cargo build --locked --profile {profile} -p planner-cli --bin planner").run()?;
    let dir = if profile == "dev" { "debug" } else { profile };
    let binary = target_dir(sh).join(dir).join("planner");
    from_binary(sh, &binary, force)
}

/// The cargo target directory (CARGO_TARGET_DIR, else `target/`).
pub(crate) fn target_dir(sh: &Shell) -> std::path::PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| sh.current_dir().join("target"), std::path::PathBuf::from)
}

/// Builds [`IMAGE`] from `binary` unless the engine has one for the same binary (or `force`).
pub(crate) fn from_binary(sh: &Shell, binary: &Path, force: bool) -> anyhow::Result<()> {
    if !binary.is_file() {
        bail!("{} does not exist; build it first", binary.display());
    }
    let sum = cmd!(sh, "sha256sum {binary}").quiet().read().context("hashing the binary")?;
    let sum = sum.split_whitespace().next().unwrap_or_default().to_owned();
    let format = format!("{{{{ index .Config.Labels \"{LABEL}\" }}}}");
    let current = cmd!(sh, "docker image inspect --format {format} {IMAGE}")
        .quiet()
        .ignore_stderr()
        .read()
        .unwrap_or_default();
    if !force && current.trim() == sum {
        eprintln!("xtask: image {IMAGE} is fresh for {} ({})", binary.display(), &sum[..12]);
        return Ok(());
    }
    let started = Instant::now();
    ensure_base(sh, force)?;
    let container = format!("planner-image-build-{}", std::process::id());
    cmd!(sh, "docker create --name {container} {BASE} /bin/true").quiet().ignore_stdout().run()?;
    let built = (|| {
        cmd!(sh, "docker cp {binary} {container}:/usr/local/bin/planner").quiet().run()?;
        let changes = [
            format!("LABEL {LABEL}={sum}"),
            r#"ENTRYPOINT ["/usr/local/bin/planner"]"#.to_owned(),
            r#"CMD ["serve"]"#.to_owned(),
            "EXPOSE 8080".to_owned(),
            "USER planner".to_owned(),
            "WORKDIR /var/lib/planner".to_owned(),
        ];
        let changes = changes.iter().flat_map(|it| ["--change", it.as_str()]);
        cmd!(sh, "docker commit {changes...} {container} {IMAGE}").quiet().ignore_stdout().run()?;
        anyhow::Ok(())
    })();
    let _ = cmd!(sh, "docker rm -f {container}").quiet().ignore_stdout().ignore_stderr().run();
    built.context("committing the planner image")?;
    eprintln!(
        "xtask: built {IMAGE} from {} in {:.0} s ({} MB)",
        binary.display(),
        started.elapsed().as_secs_f64(),
        rootfs::image_mb(sh, IMAGE)
    );
    Ok(())
}

/// Builds [`BASE`] unless the engine has it (or `force`).
fn ensure_base(sh: &Shell, force: bool) -> anyhow::Result<()> {
    if !force && rootfs::has_image(sh, BASE) {
        return Ok(());
    }
    let root = target_dir(sh).join("planner-image/rootfs");
    rootfs::debootstrap(sh, &root, "ca-certificates")?;
    let user = "useradd --uid 10001 --user-group --home-dir /var/lib/planner \
                --create-home --shell /usr/sbin/nologin planner";
    cmd!(sh, "chroot {root} sh -c {user}").run().context("adding the planner user")?;
    std::fs::write(root.join("etc/hostname"), "planner\n")?;
    rootfs::import(
        sh,
        &root,
        BASE,
        &[
            "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
            "ENV LANG=C.UTF-8",
            "ENV HOME=/var/lib/planner",
            "ENV PLANNER_DATA_DIR=/var/lib/planner",
            "ENV PLANNER_ADDR=0.0.0.0:8080",
            "LABEL org.opencontainers.image.title=planner-base",
        ],
    )?;
    cmd!(sh, "rm -rf {root}").run()?;
    Ok(())
}
