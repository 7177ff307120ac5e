//! Shared inputs of the criterion benchmarks (`benches/benches/*.rs`).
