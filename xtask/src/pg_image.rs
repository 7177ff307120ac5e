//! `cargo xtask pg-image`: builds the local PostgreSQL image `planner-postgres:15` without a
//! container registry: a Debian bookworm root file system with postgresql-15 from Debian's
//! packages (debootstrap minbase), slimmed (no docs, man pages, locales, JIT, perl or apt cache),
//! with the entrypoint in `xtask/pg-image/`, imported with `docker import`.

use std::fs;
use std::path::Path;
use std::time::Instant;

use anyhow::{Context, bail};
use xshell::{Shell, cmd};

/// Builds `image` unless the Docker engine already has it (or `force`).
pub(crate) fn ensure(sh: &Shell, image: &str, force: bool) -> anyhow::Result<()> {
    if !force
        && cmd!(sh, "docker image inspect {image}")
            .quiet()
            .ignore_stdout()
            .ignore_stderr()
            .run()
            .is_ok()
    {
        eprintln!("xtask: image {image} is present");
        return Ok(());
    }
    let started = Instant::now();
    if cmd!(sh, "which debootstrap").quiet().ignore_stdout().run().is_err() {
        eprintln!("xtask: installing debootstrap from Debian's packages");
        cmd!(sh, "apt-get update -qq").run()?;
        cmd!(sh, "apt-get install -y -qq debootstrap")
            .env("DEBIAN_FRONTEND", "noninteractive")
            .run()?;
    }
    let work = sh.current_dir().join("target/pg-image");
    let root = work.join("rootfs");
    if root.exists() {
        cmd!(sh, "rm -rf {root}").run()?;
    }
    fs::create_dir_all(&root).with_context(|| format!("creating {}", root.display()))?;
    let mirror = debian_mirror();
    eprintln!("xtask: debootstrap bookworm from {mirror} (about a minute)");
    cmd!(sh, "debootstrap --variant=minbase --include=postgresql-15 bookworm {root} {mirror}")
        .quiet()
        .ignore_stdout()
        .run()
        .context("debootstrap failed (is Debian's package mirror reachable?)")?;
    slim(sh, &root)?;
    install_entrypoint(sh, &root)?;
    import(sh, &root, image)?;
    cmd!(sh, "rm -rf {root}").run()?;
    let format = "{{.Size}}";
    let size = cmd!(sh, "docker image inspect --format {format} {image}")
        .quiet()
        .read()
        .unwrap_or_default();
    eprintln!(
        "xtask: built {image} in {:.0} s ({} MB)",
        started.elapsed().as_secs_f64(),
        size.trim().parse::<u64>().map_or(0, |b| b / 1_000_000)
    );
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

fn slim(sh: &Shell, root: &Path) -> anyhow::Result<()> {
    // JIT (libLLVM and z3) and perl are not needed by the server; postgresql-common's perl
    // wrappers break, so the image uses /usr/lib/postgresql/15/bin directly.
    let purge = "dpkg --purge --force-depends libllvm14 libz3-4 perl perl-modules-5.36 libperl5.36";
    let _ = cmd!(sh, "chroot {root} sh -c {purge}").quiet().ignore_stdout().ignore_stderr().run();
    let script = r#"
        set -e
        rm -f usr/lib/postgresql/15/lib/llvmjit*.so
        rm -rf usr/lib/postgresql/15/lib/bitcode
        rm -rf var/lib/postgresql/15 etc/postgresql/15
        rm -rf var/cache/apt/archives/*.deb var/cache/apt/*.bin var/lib/apt/lists/*
        find usr/share/doc -type f ! -name copyright -delete
        find usr/share/doc -type d -empty -delete
        rm -rf usr/share/man usr/share/info usr/share/locale/* usr/share/i18n usr/share/lintian
        rm -rf var/log/*.log var/log/apt
        : > etc/resolv.conf
        echo planner-postgres > etc/hostname
        mkdir -p docker-entrypoint-initdb.d var/lib/postgresql/data run/postgresql
    "#;
    let _dir = sh.push_dir(root);
    cmd!(sh, "sh -c {script}").run()?;
    cmd!(sh, "chroot . chown postgres:postgres /var/lib/postgresql/data /run/postgresql").run()?;
    cmd!(sh, "chmod 700 var/lib/postgresql/data").run()?;
    cmd!(sh, "chmod 2775 run/postgresql").run()?;
    Ok(())
}

fn install_entrypoint(sh: &Shell, root: &Path) -> anyhow::Result<()> {
    let source = sh.current_dir().join("xtask/pg-image/docker-entrypoint.sh");
    let target = root.join("usr/local/bin/docker-entrypoint.sh");
    fs::copy(&source, &target).with_context(|| format!("copying {}", source.display()))?;
    cmd!(sh, "chmod 755 {target}").run()?;
    if !root.join("usr/bin/setpriv").exists() {
        bail!("the root file system has no setpriv (util-linux); the entrypoint needs it");
    }
    Ok(())
}

fn import(sh: &Shell, root: &Path, image: &str) -> anyhow::Result<()> {
    let root = root.display().to_string();
    let script = format!(
        "set -o pipefail; tar -C '{root}' --numeric-owner --exclude='./dev/*' --exclude='./proc/*' \
         --exclude='./sys/*' -c . | docker import \
         --change 'ENV PATH=/usr/lib/postgresql/15/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
         --change 'ENV PGDATA=/var/lib/postgresql/data' --change 'ENV LANG=C.UTF-8' \
         --change 'ENTRYPOINT [\"/usr/local/bin/docker-entrypoint.sh\"]' --change 'CMD [\"postgres\"]' \
         --change 'EXPOSE 5432' --change 'USER root' --change 'WORKDIR /' \
         --change 'LABEL org.opencontainers.image.title=planner-postgres' \
         - '{image}' >/dev/null"
    );
    cmd!(sh, "bash -c {script}").run().context("docker import failed")?;
    Ok(())
}
