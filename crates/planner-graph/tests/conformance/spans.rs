//! Tracing: one span per run and one per node, with node, step, route and duration.

use std::sync::{Arc, Mutex};

use tracing::{
    Subscriber,
    field::{Field, Visit},
    span::{Attributes, Id, Record},
};
use tracing_subscriber::{Layer, layer::Context, prelude::*, registry::LookupSpan};

use crate::reference;

/// Records every span opened and every field recorded, as text.
#[derive(Clone, Default)]
struct Capture(Arc<Mutex<Vec<String>>>);

struct Fields(String);

impl Visit for Fields {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.push_str(&format!(" {}={value:?}", field.name()));
    }
}

impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for Capture {
    fn on_new_span(&self, attrs: &Attributes<'_>, _: &Id, _: Context<'_, S>) {
        let mut fields = Fields(format!("open {}", attrs.metadata().name()));
        attrs.record(&mut fields);
        self.0.lock().unwrap().push(fields.0);
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, ctx: Context<'_, S>) {
        let name = ctx.span(id).map_or("?", |it| it.name());
        let mut fields = Fields(format!("record {name}"));
        values.record(&mut fields);
        self.0.lock().unwrap().push(fields.0);
    }
}

#[tokio::test(flavor = "current_thread")]
async fn spans_name_the_run_and_each_node() {
    let capture = Capture::default();
    let _guard = tracing_subscriber::registry().with(capture.clone()).set_default();
    // Another test thread of the same binary (under `cargo test`) may have cached the
    // callsites as uninteresting while it had no subscriber: ask them again.
    tracing::callsite::rebuild_interest_cache();
    let script = ["continue", "ready", "finish"];
    let input = reference::RefState {
        script: script.iter().map(|it| (*it).to_owned()).collect(),
        ..reference::RefState::default()
    };
    let config = planner_graph::RunConfig::thread("t");
    reference::graph().invoke(&(), input, &config).await.unwrap();
    let lines = capture.0.lock().unwrap().clone();
    assert_eq!(lines[0], "open graph_run thread_id=\"t\"");
    assert_eq!(lines[1], "open node node=\"check_termination\" step=0");
    assert_eq!(lines[2], "record node route=\"continue\"");
    assert!(lines[3].starts_with("record node duration_us="), "{}", lines[3]);
    let nodes = lines.iter().filter(|it| it.starts_with("open node")).count();
    assert_eq!(nodes, 5);
}
