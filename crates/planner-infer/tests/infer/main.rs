//! Integration tests of the inference plane: the model client, proposer and narrator against an
//! in-process fake OpenAI-compatible server (with the narrator's pass rate at the gate), and the
//! development corpus's coverage of the registry.

mod eval;
mod fake_server;
mod model;
mod narration;
#[expect(dead_code, reason = "shared with the llm_check example, which uses the rest")]
mod pipeline;
