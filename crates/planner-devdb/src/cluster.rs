//! A PostgreSQL cluster run from local server binaries: `initdb` once, then `pg_ctl start` and
//! `stop`. Temporary (a private directory removed on drop) or persistent (a data directory kept
//! between runs, for the embedded default database).
//!
//! A persistent cluster is shared by every process that uses its directory at once (a server,
//! then `keys create` and `ask` beside it): each user holds a shared lock on `users.lock` while it
//! uses the cluster, and starting, attaching and stopping, with the reading of the superuser's
//! password file the first start writes, happen under an exclusive lock on `control.lock`. The
//! first user starts the server; a later one attaches to the server already running (its port
//! from `postmaster.pid`) and leaves it running; the user that leaves last, finding no shared
//! lock but its own, stops it. A process that dies releases its locks with it,
//! so the next user attaches to the server it left, and stops it when it leaves last.

use std::fs;
use std::net::TcpListener;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::{Error, Result};

/// How to start a [`Cluster`].
#[derive(Debug, Clone)]
pub struct ClusterConfig {
    /// The directory holding `initdb`, `pg_ctl` and `postgres`.
    pub bin_dir: PathBuf,
    /// `None`: a private temporary directory removed when the cluster stops. `Some(dir)`: a
    /// persistent directory, initialised on first use and kept.
    pub dir: Option<PathBuf>,
    /// Trade durability for speed (`fsync`, `synchronous_commit` and `full_page_writes` off).
    /// For tests and throwaway clusters only.
    pub fast_unsafe: bool,
    /// Serve TLS with this certificate, and refuse plain TCP connections (`hostssl` only; the
    /// socket stays plain). Applied when the cluster is initialised.
    pub tls: Option<ServerTls>,
}

/// A server certificate and its private key, PEM.
#[derive(Debug, Clone)]
pub struct ServerTls {
    /// The certificate chain, leaf first.
    pub cert_pem: String,
    /// The leaf's private key.
    pub key_pem: String,
}

/// A running PostgreSQL cluster listening on a loopback port and on a socket in its own 0700
/// directory; superuser `postgres` with a generated password (SCRAM, never trust: another OS user
/// cannot connect), kept in `superuser.password` (0600) in that directory. Stopped (and removed,
/// if temporary) on [`Cluster::stop`] or drop.
#[derive(Debug)]
pub struct Cluster {
    bin_dir: PathBuf,
    dir: PathBuf,
    password: String,
    port: u16,
    run_as: Option<(u32, u32)>,
    running: bool,
    /// A persistent cluster's shared lock on `users.lock`, held while this process uses it.
    user: Option<fs::File>,
    // Dropped after `stop` ran in `Drop`, which removes the directory.
    _temp: Option<tempfile::TempDir>,
}

/// The file whose exclusive lock orders starting, attaching and stopping a persistent cluster.
const CONTROL_LOCK: &str = "control.lock";
/// The file every user of a persistent cluster holds a shared lock on.
const USERS_LOCK: &str = "users.lock";

/// Opens (creating it if needed) one of a persistent cluster's lock files.
fn lock_file(dir: &Path, name: &str) -> Result<fs::File> {
    let path = dir.join(name);
    fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(&path)
        .map_err(|err| Error::io(&path, err))
}

/// Holds `control.lock` exclusively until dropped (closing the file releases the lock).
fn control(dir: &Path) -> Result<fs::File> {
    let file = lock_file(dir, CONTROL_LOCK)?;
    file.lock().map_err(|err| Error::io(dir.join(CONTROL_LOCK), err))?;
    Ok(file)
}

impl Cluster {
    /// Initialises the cluster if its data directory is empty, then starts it on a free
    /// loopback port. Takes about a second for a new temporary cluster.
    pub fn start(config: &ClusterConfig) -> Result<Cluster> {
        let run_as = if effective_uid_is_root() { Some(unprivileged_user()?) } else { None };
        let (temp, dir) = match &config.dir {
            Some(dir) => {
                fs::create_dir_all(dir).map_err(|err| Error::io(dir, err))?;
                (None, dir.clone())
            }
            None => {
                let temp = tempfile::Builder::new()
                    .prefix("planner-pg-")
                    .tempdir()
                    .map_err(|err| Error::io(std::env::temp_dir(), err))?;
                let dir = temp.path().to_path_buf();
                (Some(temp), dir)
            }
        };
        if let Some((uid, gid)) = run_as {
            std::os::unix::fs::chown(&dir, Some(uid), Some(gid))
                .map_err(|err| Error::io(&dir, err))?;
        }
        // The socket, the password and the data live here: nobody else may look in.
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o700))
            .map_err(|err| Error::io(&dir, err))?;
        let persistent = temp.is_none();
        // Held until this function returns: one process at a time starts or attaches. The
        // password is read under it: read before, a process racing the first start found no
        // password yet, took the new data directory for one from before passwords and stopped
        // the server the first process was creating its database on.
        let _control = if persistent { Some(control(&dir)?) } else { None };
        let password_path = dir.join(PASSWORD_FILE);
        let known_password = fs::read_to_string(&password_path).ok().map(|it| it.trim().to_owned());
        let password = match &known_password {
            Some(password) => password.clone(),
            None => generate_password().map_err(|err| Error::io("/dev/urandom", err))?,
        };
        let mut cluster = Cluster {
            bin_dir: config.bin_dir.clone(),
            dir,
            password,
            port: 0,
            run_as,
            running: false,
            user: None,
            _temp: temp,
        };
        if persistent {
            let user = lock_file(&cluster.dir, USERS_LOCK)?;
            user.lock_shared().map_err(|err| Error::io(cluster.dir.join(USERS_LOCK), err))?;
            cluster.user = Some(user);
        }
        let password_again = known_password.is_some();
        if !cluster.data_dir().join("PG_VERSION").exists() {
            cluster.write_password()?;
            cluster.init(config.fast_unsafe, config.tls.as_ref())?;
            cluster.start_server()?;
        } else if let Some(port) = cluster.running_port().filter(|_| password_again) {
            // Another process (or one that ended without stopping it) runs the server: use it
            // and leave it running for the others.
            cluster.port = port;
            cluster.running = true;
        } else {
            if cluster.data_dir().join("postmaster.pid").exists() {
                // A server from before passwords, or a crashed one: stop it first.
                let _ = cluster.pg_ctl(&["stop", "-m", "fast", "-w"]);
            }
            if known_password.is_none() {
                // A data directory from before passwords: trust auth. Set a password over the
                // private socket, then require it everywhere.
                cluster.write_password()?;
                cluster.start_server()?;
                cluster.require_password()?;
            } else {
                cluster.start_server()?;
            }
        }
        Ok(cluster)
    }

    /// The port of the server running on this data directory, when one runs and is ready
    /// (`pg_ctl status`, then line 4 of `postmaster.pid`).
    fn running_port(&self) -> Option<u16> {
        let status = self.pg_ctl(&["status"]).ok()?;
        if !status.status.success() {
            return None;
        }
        let pid = fs::read_to_string(self.data_dir().join("postmaster.pid")).ok()?;
        let lines: Vec<&str> = pid.lines().collect();
        let ready = lines.get(7).is_some_and(|it| it.trim() == "ready");
        ready.then(|| lines.get(3)?.trim().parse().ok()).flatten()
    }

    /// The superuser's password.
    pub fn password(&self) -> &str {
        &self.password
    }

    fn write_password(&self) -> Result<()> {
        let path = self.dir.join(PASSWORD_FILE);
        fs::write(&path, format!("{}\n", self.password)).map_err(|err| Error::io(&path, err))?;
        fs::set_permissions(&path, fs::Permissions::from_mode(0o600))
            .map_err(|err| Error::io(&path, err))?;
        if let Some((uid, gid)) = self.run_as {
            // initdb, running as the server's user, reads it with --pwfile.
            std::os::unix::fs::chown(&path, Some(uid), Some(gid))
                .map_err(|err| Error::io(&path, err))?;
        }
        Ok(())
    }

    /// Sets the superuser's password over the socket (still trusted), then switches every
    /// connection to SCRAM and reloads.
    fn require_password(&self) -> Result<()> {
        let socket = self.dir.display().to_string();
        let port = self.port.to_string();
        // Letters and digits only: nothing to quote.
        let sql = format!("ALTER ROLE postgres PASSWORD '{}'", self.password);
        let out = self.run(
            "psql",
            &[
                "-h",
                &socket,
                "-p",
                &port,
                "-U",
                "postgres",
                "-d",
                "postgres",
                "-v",
                "ON_ERROR_STOP=1",
                "-c",
                &sql,
            ],
        )?;
        check("psql", &out, &self.log_path())?;
        let hba = self.data_dir().join("pg_hba.conf");
        fs::write(&hba, HBA).map_err(|err| Error::io(&hba, err))?;
        let out = self.pg_ctl(&["reload"])?;
        check("pg_ctl reload", &out, &self.log_path())
    }

    /// The loopback port the server listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The cluster's top directory (data directory, socket and log inside).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// A URL for `database` as the superuser `postgres`, with its password, over loopback TCP.
    pub fn url(&self, database: &str) -> String {
        format!("postgres://postgres:{}@127.0.0.1:{}/{database}", self.password, self.port)
    }

    /// A streaming replica of this cluster in its own temporary directory: a base backup taken
    /// over the replication protocol (`pg_basebackup -R`), started as a hot standby (read-only,
    /// replaying the primary's WAL as it streams) on its own free loopback port, with the same
    /// superuser password. Its data is the primary's as of the backup, then follows it.
    pub fn start_replica(&self) -> Result<Cluster> {
        let temp = tempfile::Builder::new()
            .prefix("planner-pg-replica-")
            .tempdir()
            .map_err(|err| Error::io(std::env::temp_dir(), err))?;
        let dir = temp.path().to_path_buf();
        if let Some((uid, gid)) = self.run_as {
            std::os::unix::fs::chown(&dir, Some(uid), Some(gid))
                .map_err(|err| Error::io(&dir, err))?;
        }
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o700))
            .map_err(|err| Error::io(&dir, err))?;
        let mut replica = Cluster {
            bin_dir: self.bin_dir.clone(),
            dir,
            password: self.password.clone(),
            port: 0,
            run_as: self.run_as,
            running: false,
            user: None,
            _temp: Some(temp),
        };
        replica.write_password()?;
        let data = replica.data_dir().display().to_string();
        // Letters and digits only in the password: nothing to quote.
        let primary =
            format!("host=127.0.0.1 port={} user=postgres password={}", self.port, self.password);
        let out = replica.run(
            "pg_basebackup",
            &["-D", &data, "-R", "-X", "stream", "-c", "fast", "--no-sync", "-d", &primary],
        )?;
        check("pg_basebackup", &out, &self.log_path())?;
        // The primary's settings came with the backup; the socket goes in the replica's own
        // directory (the last setting of a name wins).
        let socket_dir = replica.dir.display().to_string().replace('\'', "''");
        let conf_path = replica.data_dir().join("postgresql.conf");
        let mut text = fs::read_to_string(&conf_path).map_err(|err| Error::io(&conf_path, err))?;
        text.push_str(&format!("\n# replica\nunix_socket_directories = '{socket_dir}'\n"));
        fs::write(&conf_path, text).map_err(|err| Error::io(&conf_path, err))?;
        replica.start_server()?;
        Ok(replica)
    }

    /// Stops the server at once, as a crash would (immediate shutdown: no checkpoint, sessions
    /// cut). Idempotent.
    pub fn kill(&mut self) -> Result<()> {
        self.shut_down("immediate")
    }

    /// Stops the server (fast shutdown: open sessions are disconnected). Idempotent. A
    /// persistent cluster is stopped only by its last user: while another process uses it,
    /// this process only lets go of it.
    pub fn stop(&mut self) -> Result<()> {
        self.shut_down("fast")
    }

    fn shut_down(&mut self, mode: &str) -> Result<()> {
        if let Some(user) = self.user.take() {
            let _control = control(&self.dir)?;
            drop(user);
            // Every other user holds a shared lock: the exclusive one is free only to the last.
            let probe = lock_file(&self.dir, USERS_LOCK)?;
            let last = probe.try_lock().is_ok();
            if !last {
                self.running = false;
                return Ok(());
            }
        }
        if self.running {
            self.running = false;
            let out = self.pg_ctl(&["stop", "-m", mode, "-w", "-t", "60"])?;
            check("pg_ctl stop", &out, &self.log_path())?;
        }
        Ok(())
    }

    fn data_dir(&self) -> PathBuf {
        self.dir.join("data")
    }

    fn log_path(&self) -> PathBuf {
        self.dir.join("postgres.log")
    }

    fn init(&self, fast_unsafe: bool, tls: Option<&ServerTls>) -> Result<()> {
        let data = self.data_dir();
        let data_arg = data.display().to_string();
        let pwfile = format!("--pwfile={}", self.dir.join(PASSWORD_FILE).display());
        let mut args = vec![
            "-D",
            &data_arg,
            "-U",
            "postgres",
            "--auth=scram-sha-256",
            &pwfile,
            "-E",
            "UTF8",
            "--locale=C.UTF-8",
        ];
        if fast_unsafe {
            args.push("--no-sync");
        }
        let out = self.run("initdb", &args)?;
        check("initdb", &out, Path::new(""))?;
        let socket_dir = self.dir.display().to_string().replace('\'', "''");
        let mut conf = format!(
            "\n# planner-devdb\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '{socket_dir}'\n\
             max_connections = 300\nshared_buffers = 128MB\n"
        );
        if fast_unsafe {
            conf.push_str("fsync = off\nsynchronous_commit = off\nfull_page_writes = off\n");
        }
        // Statement statistics, which the injection tests read, when the installation has them.
        if self.bin_dir.join("../lib/pg_stat_statements.so").exists() {
            conf.push_str(
                "shared_preload_libraries = 'pg_stat_statements'\npg_stat_statements.max = 50000\n",
            );
        }
        if let Some(tls) = tls {
            for (name, pem) in [("server.crt", &tls.cert_pem), ("server.key", &tls.key_pem)] {
                let path = data.join(name);
                fs::write(&path, pem).map_err(|err| Error::io(&path, err))?;
                // The server refuses a key others may read.
                fs::set_permissions(&path, fs::Permissions::from_mode(0o600))
                    .map_err(|err| Error::io(&path, err))?;
                if let Some((uid, gid)) = self.run_as {
                    std::os::unix::fs::chown(&path, Some(uid), Some(gid))
                        .map_err(|err| Error::io(&path, err))?;
                }
            }
            conf.push_str("ssl = on\nssl_cert_file = 'server.crt'\nssl_key_file = 'server.key'\n");
            let hba = data.join("pg_hba.conf");
            fs::write(&hba, HBA_TLS).map_err(|err| Error::io(&hba, err))?;
        }
        let conf_path = data.join("postgresql.conf");
        let mut text = fs::read_to_string(&conf_path).map_err(|err| Error::io(&conf_path, err))?;
        text.push_str(&conf);
        fs::write(&conf_path, text).map_err(|err| Error::io(&conf_path, err))?;
        Ok(())
    }

    fn start_server(&mut self) -> Result<()> {
        let mut last = None;
        // A free port can be taken between choosing it and binding it: try a few.
        for _ in 0..3 {
            let port = free_port().map_err(|err| Error::io("127.0.0.1:0", err))?;
            let log = self.log_path().display().to_string();
            let opts = format!("-p {port}");
            let out = self.pg_ctl(&["start", "-w", "-t", "60", "-l", &log, "-o", &opts])?;
            if out.status.success() {
                self.port = port;
                self.running = true;
                return Ok(());
            }
            last = Some(out);
        }
        let out = last.expect("the loop ran at least once");
        check("pg_ctl start", &out, &self.log_path())
    }

    fn pg_ctl(&self, args: &[&str]) -> Result<Output> {
        let data = self.data_dir().display().to_string();
        let mut all = vec!["-D", &data];
        all.extend_from_slice(args);
        self.run("pg_ctl", &all)
    }

    fn run(&self, program: &str, args: &[&str]) -> Result<Output> {
        let path = self.bin_dir.join(program);
        let mut command = match self.run_as {
            Some((uid, gid)) => {
                let mut c = Command::new("setpriv");
                c.arg(format!("--reuid={uid}"))
                    .arg(format!("--regid={gid}"))
                    .arg("--clear-groups")
                    .arg("--")
                    .arg(&path);
                c
            }
            None => Command::new(&path),
        };
        command.args(args).current_dir(&self.dir).env("LC_ALL", "C.UTF-8");
        command.output().map_err(|err| Error::Command {
            program: program.to_owned(),
            detail: format!("cannot run {}: {err}", path.display()),
        })
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        if let Err(err) = self.stop() {
            tracing::warn!("stopping the PostgreSQL cluster in {}: {err}", self.dir.display());
        }
    }
}

fn check(program: &str, out: &Output, log: &Path) -> Result<()> {
    if out.status.success() {
        return Ok(());
    }
    let mut detail = format!(
        "{}\n{}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    if let Ok(text) = fs::read_to_string(log) {
        let tail: Vec<&str> = text.lines().rev().take(20).collect();
        detail.push_str("\nserver log (last lines):\n");
        for line in tail.into_iter().rev() {
            detail.push_str(line);
            detail.push('\n');
        }
    }
    Err(Error::Command { program: program.to_owned(), detail })
}

/// The file, in the cluster's directory, holding the superuser's password.
const PASSWORD_FILE: &str = "superuser.password";

/// Every connection, over the socket or loopback TCP, needs the password.
const HBA: &str = "# planner-devdb: a password for every connection (SCRAM), never trust\n\
local all all scram-sha-256\n\
host all all 127.0.0.1/32 scram-sha-256\n\
host all all ::1/128 scram-sha-256\n";

/// A TLS cluster: the socket with a password, TCP only over TLS with a password.
const HBA_TLS: &str = "# planner-devdb: TLS for every TCP connection, a password for all\n\
local all all scram-sha-256\n\
hostssl all all 127.0.0.1/32 scram-sha-256\n\
hostssl all all ::1/128 scram-sha-256\n";

/// 32 random letters and digits from the kernel's generator: a password that needs no quoting
/// anywhere (SQL literals, URLs, files).
pub fn generate_password() -> std::io::Result<String> {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    let mut bytes = [0u8; 32];
    let mut file = fs::File::open("/dev/urandom")?;
    std::io::Read::read_exact(&mut file, &mut bytes)?;
    // 62 symbols: the small bias of the modulo does not matter for 190 bits.
    Ok(bytes.iter().map(|b| char::from(ALPHABET[usize::from(*b) % ALPHABET.len()])).collect())
}

fn free_port() -> std::io::Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

fn effective_uid_is_root() -> bool {
    // The owner of /proc/self is the process's effective uid.
    fs::metadata("/proc/self").map(|it| it.uid() == 0).unwrap_or(false)
}

/// PostgreSQL refuses to run as root: pick `postgres` if it exists, else `nobody`.
fn unprivileged_user() -> Result<(u32, u32)> {
    let passwd = fs::read_to_string("/etc/passwd").map_err(|err| Error::io("/etc/passwd", err))?;
    let entry = |name: &str| {
        passwd.lines().find_map(|line| {
            let fields: Vec<&str> = line.split(':').collect();
            (fields.len() > 3 && fields[0] == name)
                .then(|| Some((fields[2].parse().ok()?, fields[3].parse().ok()?)))
                .flatten()
        })
    };
    entry("postgres").or_else(|| entry("nobody")).ok_or_else(|| Error::Command {
        program: "initdb".to_owned(),
        detail: "running as root and no `postgres` or `nobody` user exists to run the server as"
            .to_owned(),
    })
}

/// The directory of local PostgreSQL server binaries: `pg_config --bindir` (found on
/// `path_var`), then the directories of `path_var`, then the newest `<system_root>/*/bin`
/// (`/usr/lib/postgresql` on Debian). A candidate counts when it has `initdb`, `pg_ctl` and
/// `postgres`.
pub fn find_bin_dir(path_var: Option<&str>, system_root: &Path) -> Option<PathBuf> {
    let usable =
        |dir: &Path| ["initdb", "pg_ctl", "postgres"].iter().all(|p| dir.join(p).is_file());
    let path_dirs: Vec<PathBuf> =
        path_var.map(|p| std::env::split_paths(p).collect()).unwrap_or_default();
    let mut candidates = Vec::new();
    if let Some(pg_config) =
        path_dirs.iter().map(|dir| dir.join("pg_config")).find(|it| it.is_file())
        && let Ok(out) = Command::new(pg_config).arg("--bindir").output()
        && out.status.success()
    {
        candidates.push(PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()));
    }
    candidates.extend(path_dirs);
    if let Ok(entries) = fs::read_dir(system_root) {
        let mut versions: Vec<(u32, PathBuf)> = entries
            .filter_map(|it| it.ok())
            .filter_map(|it| {
                let version = it.file_name().to_str()?.parse::<u32>().ok()?;
                Some((version, it.path().join("bin")))
            })
            .collect();
        versions.sort();
        candidates.extend(versions.into_iter().rev().map(|(_, dir)| dir));
    }
    candidates.into_iter().find(|dir| usable(dir))
}
