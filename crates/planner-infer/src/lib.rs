//! The inference plane: proposers, narrators and the faithfulness gate.
//!
//! - [`Proposer`]: from a question, the catalog of intents and the available param kinds, K
//!   proposals of raw intent names. [`LexicalProposer`] is the offline default (deterministic, no
//!   model, no network); [`ModelProposer`] asks an OpenAI-compatible server whose reply is
//!   constrained to the closed set at decoding time.
//! - [`Narrator`]: turns evidence into prose. [`TemplateNarrator`] is deterministic;
//!   [`ModelNarrator`] asks a model.
//! - [`check_faithfulness`]: the deterministic gate every narration passes before it ships: its
//!   numbers, dates and names must be the evidence's, and it follows the design's writing rule
//!   (no dash punctuation, [`find_dashes`]).
//!
//! **Architecture invariants:** this is the only crate that talks HTTP to a model (reqwest),
//! whose TLS runs on the build's one cryptographic module (`planner-crypto`'s rustls provider,
//! installed as the process default before the client is built).
//! A model's output is only ever a list of names filtered against the closed set, or prose that
//! the gate checks against the evidence; it never becomes an argument, SQL or a value. The
//! library never reads the environment: API keys are resolved by the caller.

mod catalog;
mod dash;
mod error;
mod evidence;
mod gate;
mod lexical;
mod narrate;
mod openai;
mod proposer;

pub use crate::{
    catalog::{Catalog, Example, IntentCard},
    dash::find_dashes,
    error::{Error, Result},
    evidence::{Bound, Cell, DroppedIntent, Evidence, EvidenceTable, Window},
    gate::{GateConfig, Miss, Verdict, check_faithfulness},
    lexical::{LexicalPick, LexicalProposer},
    narrate::{ModelNarrator, Narrator, TemplateNarrator, cell_text},
    openai::{
        ChatReply, Constraint, ModelClient, ModelConfig, ModelProposer, ParsedReply, parse_reply,
    },
    proposer::{BoxFuture, ParamSpan, Proposals, ProposeRequest, Proposer},
};
