//! Instruction counts of the hot paths under callgrind (gungraun): extraction, the lexical pick,
//! planning a question, the screen alone, validate and bind, the faithfulness gate, a graph step without and with
//! the in-memory checkpointer, and rendering an answer. Each benchmark's inputs come from
//! `planner_benches::inputs` (the criterion benches build theirs there too) in a setup function
//! that callgrind does not count. Each setup also runs the measured code once, so that lazily
//! built tables and the allocator's first growth are not counted: the figures are a warm call.
//!
//! Run through `cargo xtask bench --counts`, which installs valgrind and the gungraun runner of
//! the same version as the library when they are missing; the figure of each benchmark divided
//! by its items (`[[count]]` of benches/targets.toml) is the cost per item.
//!
//! The test-only feature `regress-3pct` adds about 3 % of instructions to
//! `extract/question_300b`, so that `cargo xtask bench --self-check` can show the gate catching
//! it.

#![allow(missing_docs, reason = "gungraun's macros make public items without docs")]

use std::hint::black_box;
use std::sync::Arc;

use gungraun::{library_benchmark, library_benchmark_group, main};
use planner_benches::inputs::{self, PickInput, ValidateCase};
use planner_benches::topology::{self, LoopState, Ref};
use planner_engine::{Planner, plan_report};
use planner_graph::{Durability, Graph, MemoryCheckpointer, RunConfig};
use planner_infer::{Evidence, GateConfig, LexicalProposer, TemplateNarrator, check_faithfulness};
use tokio::runtime::Runtime;

/// Iterations of the graph loop measured: 12 steps each, 1,202 steps in all.
const LOOP_N: u64 = 100;

/// Keeps a benchmark's input out of its count. Callgrind counts the whole benchmark function, and
/// a function that owns its argument drops it before returning: without this, every figure would
/// include freeing its inputs (a tokio runtime, a planner, a corpus), which is not the work
/// measured. The process ends after one call, so nothing is kept longer than the run.
fn uncounted_drop<T>(input: T) {
    std::mem::forget(input);
}

/// `value` after `warm_up` has run on it once.
fn warmed<T>(value: T, warm_up: impl FnOnce(&T)) -> T {
    warm_up(&value);
    value
}

fn runtime() -> Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime")
}

/// Work that only the `regress-3pct` build does: about 3 % of `extract/question_300b`.
#[inline(never)]
fn deliberate_regression() {
    #[cfg(feature = "regress-3pct")]
    for step in 0..REGRESSION_STEPS {
        black_box(step);
    }
}

/// Iterations of the deliberate regression's loop (calibrated against the benchmark's count).
#[cfg(feature = "regress-3pct")]
const REGRESSION_STEPS: u32 = 181;

fn extract_setup() -> String {
    warmed(inputs::question_300(), |question| {
        black_box(planner_extract::extract(question));
    })
}

#[library_benchmark]
#[bench::question_300b(setup = extract_setup)]
fn extract(question: String) -> planner_extract::Extraction {
    deliberate_regression();
    let extraction = black_box(planner_extract::extract(black_box(&question)));
    uncounted_drop(question);
    extraction
}

fn pick_all(proposer: &LexicalProposer, questions: &[PickInput]) {
    for input in questions {
        black_box(proposer.pick(black_box(&input.question), &input.kinds, &input.spans));
    }
}

fn pick_setup() -> (LexicalProposer, Vec<PickInput>) {
    warmed((inputs::lexical_proposer(), inputs::pick_inputs()), |(proposer, questions)| {
        pick_all(proposer, questions);
    })
}

#[library_benchmark]
#[bench::dev_corpus(setup = pick_setup)]
fn lexical_pick((proposer, questions): (LexicalProposer, Vec<PickInput>)) {
    pick_all(&proposer, &questions);
    uncounted_drop((proposer, questions));
}

type PlanInput = (Runtime, Planner, Vec<String>);

fn plan_all((runtime, planner, questions): &PlanInput) {
    let scopes = vec!["bench".to_owned()];
    runtime.block_on(async {
        for question in questions {
            black_box(plan_report(planner, black_box(question), &scopes).await.ok());
        }
    });
}

fn plan_setup() -> PlanInput {
    let questions = inputs::dev_corpus().into_iter().map(|item| item.question).collect();
    warmed((runtime(), inputs::planner(), questions), plan_all)
}

fn compound_setup() -> PlanInput {
    let questions = vec![inputs::COMPOUND_QUESTION.to_owned()];
    warmed((runtime(), inputs::planner(), questions), plan_all)
}

#[library_benchmark]
#[bench::dev_corpus(setup = plan_setup)]
#[bench::compound_question(setup = compound_setup)]
fn plan(input: PlanInput) {
    plan_all(&input);
    uncounted_drop(input);
}

type ScreenInput = (Planner, Vec<(String, planner_extract::Extraction)>);

fn screen_all((planner, items): &ScreenInput) {
    for (question, extraction) in items {
        black_box(planner.screen().check(black_box(question), extraction));
    }
}

/// The screen alone over the development corpus, each question's extraction made in the setup.
fn screen_setup() -> ScreenInput {
    let planner = inputs::planner();
    let items = inputs::dev_corpus()
        .into_iter()
        .map(|item| {
            let extraction = planner.extractor().extract(&item.question);
            (item.question, extraction)
        })
        .collect();
    warmed((planner, items), screen_all)
}

#[library_benchmark]
#[bench::dev_corpus(setup = screen_setup)]
fn screen(input: ScreenInput) {
    screen_all(&input);
    uncounted_drop(input);
}

fn validate_once(case: &ValidateCase) {
    let validation =
        planner_grammar::validate(&case.registry, black_box(&case.inputs()), &case.proposal);
    assert_eq!(validation.plan.nodes.len(), 6);
    black_box(validation);
}

fn validate_16() -> ValidateCase {
    warmed(ValidateCase::reference_16(), validate_once)
}

fn validate_1000() -> ValidateCase {
    warmed(ValidateCase::generated_1000(), validate_once)
}

#[library_benchmark]
#[bench::six_nodes_16_intents(setup = validate_16)]
#[bench::six_nodes_1000_intents(setup = validate_1000)]
fn validate(case: ValidateCase) {
    validate_once(&case);
    uncounted_drop(case);
}

type GateInput = (Evidence, String, GateConfig);

fn gate_once((evidence, narration, config): &GateInput) {
    assert!(check_faithfulness(black_box(narration), evidence, config).passed());
}

fn gate_setup() -> GateInput {
    let (evidence, narration) = inputs::gate_input();
    warmed((evidence, narration, GateConfig::reference()), gate_once)
}

#[library_benchmark]
#[bench::narration_1kb_10_tables(setup = gate_setup)]
fn gate(input: GateInput) {
    gate_once(&input);
    uncounted_drop(input);
}

type GraphInput = (Runtime, Graph<Ref, LoopState, ()>);

fn graph_setup(graph: Graph<Ref, LoopState, ()>) -> GraphInput {
    warmed((runtime(), graph), |(runtime, graph)| {
        topology::run(runtime, graph, 1, &RunConfig::thread("warm-up"));
    })
}

fn graph_plain() -> GraphInput {
    graph_setup(topology::build())
}

fn graph_memory() -> GraphInput {
    graph_setup(
        topology::build().with_checkpointer(Arc::new(MemoryCheckpointer::new()), Durability::Async),
    )
}

#[library_benchmark]
#[bench::loop_n100_no_checkpointer(setup = graph_plain)]
#[bench::loop_n100_memory(setup = graph_memory)]
fn graph_step((runtime, graph): GraphInput) {
    topology::run(&runtime, &graph, LOOP_N, &RunConfig::thread("counts"));
    uncounted_drop((runtime, graph));
}

fn render_setup() -> Evidence {
    warmed(inputs::evidence_10_tables(), |evidence| {
        black_box(TemplateNarrator::render(evidence));
    })
}

#[library_benchmark]
#[bench::answer_10_tables(setup = render_setup)]
fn render(evidence: Evidence) -> String {
    let text = black_box(TemplateNarrator::render(black_box(&evidence)));
    uncounted_drop(evidence);
    text
}

library_benchmark_group!(
    name = hot_paths;
    benchmarks = extract, lexical_pick, plan, screen, validate, gate, graph_step, render
);

main!(library_benchmark_groups = hot_paths);
