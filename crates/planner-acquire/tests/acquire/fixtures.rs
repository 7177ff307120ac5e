//! Shared helpers: fixture profiles, hand-built states, applying a node's command.

use std::path::{Path, PathBuf};

use planner_acquire::{AcqState, Document, Idea, Profile, Update, load_documents};
use planner_graph::{Command, GraphState};

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

pub fn profile(name: &str) -> Profile {
    Profile::load(&root().join(format!("fixtures/acquire/{name}.toml"))).unwrap()
}

pub fn documents() -> Vec<Document> {
    load_documents(&root().join("fixtures/acquire/corpus.toml")).unwrap()
}

/// A coffee-shop state with region and currency known.
pub fn ready(profile: &Profile) -> AcqState {
    let idea = Idea {
        text: "A specialty coffee shop in Berlin".into(),
        location: Some("Berlin, Germany".into()),
        currency: Some("EUR".into()),
    };
    AcqState::new(profile, idea)
}

/// Applies a node's command to a copy of the state; the route it took.
pub fn step<R: Copy>(state: &AcqState, command: Command<Update, R>) -> (AcqState, R) {
    match command {
        Command::Goto { update, route } => {
            let mut next = state.clone();
            next.apply(update);
            (next, route)
        }
        Command::Interrupt(payload) => panic!("unexpected interrupt {payload}"),
    }
}
