//! Integration tests of the inference plane: the model client and proposer against an in-process
//! fake OpenAI-compatible server, and the lexical proposer end to end on the development corpus.

mod eval;
mod fake_server;
mod model;
mod pipeline;
