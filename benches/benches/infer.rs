//! Inference-plane benchmarks: the lexical proposer per question of the development corpus, and
//! the faithfulness gate on a 1 KB narration over 10 evidence tables.

use std::collections::BTreeSet;
use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use planner_infer::{
    Catalog, Cell, Evidence, EvidenceTable, GateConfig, LexicalProposer, ParamSpan,
    TemplateNarrator, check_faithfulness,
};
use planner_registry::{ParamKind, Registry};

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

fn registry() -> Registry {
    let dir = root().join("fixtures/registry");
    let path = ["capture.toml", "test-reference.toml"]
        .iter()
        .map(|name| dir.join(name))
        .find(|path| path.exists())
        .expect("a reference registry");
    Registry::from_toml(&std::fs::read_to_string(&path).unwrap(), "reference").unwrap()
}

/// Each dev question with its extracted kinds and spans, extracted once outside the timing.
fn questions() -> Vec<(String, BTreeSet<ParamKind>, Vec<ParamSpan>)> {
    let text = std::fs::read_to_string(root().join("fixtures/eval/dev.jsonl")).unwrap();
    text.lines()
        .map(|line| {
            let json: serde_json::Value = serde_json::from_str(line).unwrap();
            let question = json["question"].as_str().unwrap().to_owned();
            let extraction = planner_extract::extract(&question);
            let kinds = extraction.available().keys().copied().collect();
            let spans = extraction
                .params
                .iter()
                .map(|m| ParamSpan { kind: m.kind, start: m.span.start, end: m.span.end })
                .collect();
            (question, kinds, spans)
        })
        .collect()
}

fn lexical(c: &mut Criterion) {
    let proposer = LexicalProposer::new(&Catalog::from_registry(&registry()));
    let questions = questions();
    let mut next = 0;
    c.bench_function("infer/lexical_pick_per_question", |b| {
        b.iter(|| {
            let (question, kinds, spans) = &questions[next % questions.len()];
            next += 1;
            black_box(proposer.pick(black_box(question), kinds, spans))
        })
    });
}

/// Ten tables of mixed cells, and a narration of about 1 KB drawn from them.
fn gate_input() -> (Evidence, String) {
    let mut tables = Vec::new();
    for t in 0..10i64 {
        let rows = (0..4i64)
            .map(|r| {
                vec![
                    Cell::Text(format!("Vendor{t}{r} Federal Systems")),
                    Cell::Text(format!("J7M9KLPQ{t}R{r}5")),
                    Cell::Decimal(format!(
                        "{}.{:02}",
                        1_000_000 + t * 7919 + r * 104_729,
                        (t + r) % 100
                    )),
                    if r == 3 { Cell::Suppressed { k: 11 } } else { Cell::Int(12 + t * 3 + r) },
                    Cell::Date(format!("2027-{:02}-{:02}", 1 + (t % 12), 1 + r)),
                ]
            })
            .collect();
        tables.push(EvidenceTable {
            intent: format!("intent_{t}"),
            columns: ["name", "uei", "obligations", "candidates", "end_date"]
                .map(str::to_owned)
                .to_vec(),
            rows,
        });
    }
    let evidence = Evidence {
        tables,
        entities: vec!["Department of the Army".to_owned(), "541512".to_owned()],
    };
    let full = TemplateNarrator::render(&evidence);
    let mut narration = String::new();
    for line in full.lines() {
        if narration.len() + line.len() > 1024 {
            break;
        }
        narration.push_str(line);
        narration.push('\n');
    }
    (evidence, narration)
}

fn gate(c: &mut Criterion) {
    let (evidence, narration) = gate_input();
    let config = GateConfig::reference();
    assert!(check_faithfulness(&narration, &evidence, &config).passed());
    c.bench_function("infer/gate_1kb_10_tables", |b| {
        b.iter(|| black_box(check_faithfulness(black_box(&narration), &evidence, &config)))
    });
}

criterion_group!(benches, lexical, gate);
criterion_main!(benches);
