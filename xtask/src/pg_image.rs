//! `cargo xtask pg-image`: builds the local PostgreSQL image `planner-postgres:15` without a
//! container registry: a Debian bookworm root file system with postgresql-15 from Debian's
//! packages (debootstrap minbase, see `rootfs`), slimmed (no docs, man pages, locales, JIT, perl
//! or apt cache), with the entrypoint in `xtask/pg-image/`, imported with `docker import`.

use std::fs;
use std::path::Path;
use std::time::Instant;

use anyhow::{Context, bail};
use xshell::{Shell, cmd};

use crate::rootfs;

/// Builds `image` unless the Docker engine already has it (or `force`).
pub(crate) fn ensure(sh: &Shell, image: &str, force: bool) -> anyhow::Result<()> {
    if !force && rootfs::has_image(sh, image) {
        eprintln!("xtask: image {image} is present");
        return Ok(());
    }
    let started = Instant::now();
    let root = sh.current_dir().join("target/pg-image/rootfs");
    rootfs::debootstrap(sh, &root, "postgresql-15")?;
    slim(sh, &root)?;
    install_entrypoint(sh, &root)?;
    rootfs::import(
        sh,
        &root,
        image,
        &[
            "ENV PATH=/usr/lib/postgresql/15/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
            "ENV PGDATA=/var/lib/postgresql/data",
            "ENV LANG=C.UTF-8",
            r#"ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]"#,
            r#"CMD ["postgres"]"#,
            "EXPOSE 5432",
            "USER root",
            "WORKDIR /",
            "LABEL org.opencontainers.image.title=planner-postgres",
        ],
    )?;
    cmd!(sh, "rm -rf {root}").run()?;
    eprintln!(
        "xtask: built {image} in {:.0} s ({} MB)",
        started.elapsed().as_secs_f64(),
        rootfs::image_mb(sh, image)
    );
    Ok(())
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
        find usr/share/doc -type d -empty -delete
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
