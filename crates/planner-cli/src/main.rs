//! The `planner` binary: argument parsing and logging set-up live here; the work is in the
//! library.
//!
//! The allocator is mimalloc: a profile of an answer in process (callgrind, 2,000 answers of the
//! lightest registry statement at scale 20, docs/benchmarks-history.md) spent 35 % of its
//! instructions
//! in glibc's malloc and free, the answer path being many small, short-lived allocations spread
//! over the runtime's worker threads.

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    planner_cli::main()
}
