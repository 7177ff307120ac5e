//! The `planner` binary: argument parsing and logging set-up live here; the work is in the
//! library.

fn main() -> std::process::ExitCode {
    planner_cli::main()
}
