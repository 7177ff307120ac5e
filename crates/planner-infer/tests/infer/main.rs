//! Integration tests of the inference plane: the model client and proposer against an in-process
//! fake OpenAI-compatible server, and the development corpus's coverage of the registry.

mod eval;
mod fake_server;
mod model;
#[expect(dead_code, reason = "shared with the llm_check example, which uses the rest")]
mod pipeline;
