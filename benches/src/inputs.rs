//! The inputs every benchmark measures, built once outside the measured code.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use planner_engine::{EvalItem, Planner, parse_corpus};
use planner_grammar::Inputs;
use planner_infer::{Catalog, Cell, Evidence, EvidenceTable, LexicalProposer, ParamSpan};
use planner_registry::{ParamKind, Registry, Value};

/// The capture registry the engine ships with.
pub const CAPTURE_REGISTRY: &str = planner_registry::reference::TEXT;
/// The 16-intent reference registry of the grammar tests.
pub const TEST_REFERENCE_REGISTRY: &str =
    include_str!("../../fixtures/registry/test-reference.toml");
/// The development corpus (one JSON object a line).
pub const DEV_CORPUS: &str = include_str!("../../fixtures/eval/dev.jsonl");
/// The extractor's question corpus (one question a line, `#` comments).
const EXTRACT_QUESTIONS: &str = include_str!("../../fixtures/extract/questions.txt");
/// The compound question of the README.
pub const COMPOUND_QUESTION: &str = "For the 'Department of the Army' recompete under NAICS \
                                     541512, who are the incumbents and how many of our bench \
                                     hold TS/SCI with SI/TK?";

/// A registry from TOML text the benches ship (its CSVs those beside the reference registry);
/// a broken fixture stops the bench.
#[must_use]
pub fn load(text: &str, origin: &str) -> Registry {
    match Registry::from_toml_with(text, origin, &planner_registry::reference::files) {
        Ok(registry) => registry,
        Err(err) => panic!("{origin}: {err}"),
    }
}

fn extract_questions() -> impl Iterator<Item = &'static str> {
    EXTRACT_QUESTIONS.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#'))
}

/// The reference registry (`fixtures/registry/capture.toml`), with its files.
#[must_use]
pub fn reference_registry() -> Registry {
    load(CAPTURE_REGISTRY, "capture.toml")
}

/// The retail domain's registry (`fixtures/domains/retail`), its CSVs read beside it.
#[must_use]
pub fn retail_registry() -> Registry {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/domains/retail");
    let text = std::fs::read_to_string(dir.join("registry.toml")).expect("the retail registry");
    let files = |name: &str| std::fs::read_to_string(dir.join(name)).map_err(|e| e.to_string());
    match Registry::from_toml_with(&text, "retail/registry.toml", &files) {
        Ok(registry) => registry,
        Err(err) => panic!("{err}"),
    }
}

/// A 300-byte retail question naming one value of every kind the retail registry declares.
pub const RETAIL_300: &str = "Top 5 products in the Pacific Northwest for Q1 2025 via web and \
    wholesale, then stock for SKU CF-1001, the orders of \"Blue Harbor Cafe\" since March 2025, \
    gold or above customers in New England, order 0b6f1c2e-58a4-4c1e-9d43-2f6c8e1a7b90 and the \
    daily sales over the last 30 days, with FY2024 returns too";

/// The extractor corpus questions joined by spaces, cut at the last space before byte 300.
#[must_use]
pub fn question_300() -> String {
    let mut text = String::new();
    for q in extract_questions() {
        if text.len() >= 300 {
            break;
        }
        text.push_str(q);
        text.push(' ');
    }
    let cut = text[..300.min(text.len())].rfind(' ').unwrap_or(text.len());
    text.truncate(cut);
    text
}

/// The extractor corpus repeated, one question a line, to at least 1 MiB.
#[must_use]
pub fn corpus_1mib() -> String {
    let mut text = String::new();
    while text.len() < 1 << 20 {
        for q in extract_questions() {
            text.push_str(q);
            text.push('\n');
        }
    }
    text
}

/// The development corpus, parsed.
#[must_use]
pub fn dev_corpus() -> Vec<EvalItem> {
    parse_corpus(DEV_CORPUS).expect("fixtures/eval/dev.jsonl parses")
}

/// The planner of `planner plan` on the capture registry, without a model.
#[must_use]
pub fn planner() -> Planner {
    Planner::new(load(CAPTURE_REGISTRY, "capture.toml"), None, 1)
}

/// One dev question with what the extractor found in it, as the lexical proposer takes it.
#[derive(Debug, Clone)]
pub struct PickInput {
    /// The question.
    pub question: String,
    /// The kinds of the params found.
    pub kinds: BTreeSet<ParamKind>,
    /// Where the params are.
    pub spans: Vec<ParamSpan>,
}

/// Every dev question, extracted once (extraction is not part of the pick).
#[must_use]
pub fn pick_inputs() -> Vec<PickInput> {
    dev_corpus()
        .into_iter()
        .map(|item| {
            let extraction = planner_extract::extract(&item.question);
            let kinds = extraction.available().keys().copied().collect();
            let spans = extraction
                .params
                .iter()
                .map(|m| ParamSpan {
                    kind: m.kind,
                    start: m.span.start,
                    end: m.span.end,
                    role: m.role,
                })
                .collect();
            PickInput { question: item.question, kinds, spans }
        })
        .collect()
}

/// The lexical proposer on the capture registry.
#[must_use]
pub fn lexical_proposer() -> LexicalProposer {
    LexicalProposer::new(&Catalog::from_registry(&load(CAPTURE_REGISTRY, "capture.toml")))
}

/// A registry of `count` intents over the reference params: each query intent takes one or two
/// params; every tenth provides a UEI, every tenth (offset) needs one; every fiftieth is a
/// composite of the two intents before it.
#[must_use]
pub fn generated_registry(count: usize) -> String {
    let mut text = String::from(
        r#"[registry]
node_cap = 6
default_k = 11
allowed_schemas = ["market"]
scopes = ["bench"]

[planes]
market = { tenant = false, schemas = ["market"] }

[params]
agency = { kind = "agency" }
naics = { kind = "naics" }
requirement_id = { kind = "uuid" }
uei = { kind = "uei" }
window_months = { kind = "months" }
"#,
    );
    for index in 0..count {
        let name = format!("intent_{index:04}");
        if index % 50 == 49 {
            let _ = write!(
                text,
                "\n[[intent]]\nname = \"{name}\"\ndescription = \"Composite {index}.\"\n\
                 members = [\"intent_{:04}\", \"intent_{:04}\"]\n",
                index - 2,
                index - 1
            );
            continue;
        }
        let (params, sql_where) = match index % 10 {
            3 => ("{ name = \"uei\" }", "t.uei = $1::text"),
            5 => ("{ name = \"requirement_id\" }", "t.id = $1::uuid"),
            7 => (
                "{ name = \"naics\" }, { name = \"window_months\", default = 12, min = 1, max = 60 }",
                "t.naics = $1::text AND t.months <= $2::int",
            ),
            _ => (
                "{ name = \"agency\" }, { name = \"naics\" }",
                "t.agency = $1::text AND t.naics = $2::text",
            ),
        };
        let provides = if index % 10 == 5 { ", provides = \"uei\"" } else { "" };
        let _ = write!(
            text,
            "\n[[intent]]\nname = \"{name}\"\ndescription = \"Intent {index}.\"\nplane = \"market\"\n\
             params = [{params}]\nsql = \"SELECT t.uei FROM market.t{index} AS t WHERE {sql_where}\"\n\
             columns = [{{ name = \"uei\", type = \"text\"{provides} }}]\n"
        );
    }
    text
}

/// The params a question supplied, for validation.
#[must_use]
pub fn available_params() -> BTreeMap<ParamKind, Value> {
    [
        (ParamKind::Agency, Value::Text("Department of the Army".to_owned())),
        (ParamKind::Naics, Value::Text("541512".to_owned())),
        (ParamKind::Uuid, Value::Text("0b6f1c2e-58a4-4c1e-9d43-2f6c8e1a7b90".to_owned())),
        (ParamKind::Months, Value::Int(18)),
    ]
    .into_iter()
    .collect()
}

/// A registry and a proposal that validates to a 6-node plan on it.
#[derive(Debug)]
pub struct ValidateCase {
    /// The registry.
    pub registry: Registry,
    /// The proposed intent names.
    pub proposal: Vec<String>,
    /// The params available.
    pub available: BTreeMap<ParamKind, Value>,
    /// The caller's scopes.
    pub scopes: Vec<String>,
}

impl ValidateCase {
    /// The 16-intent reference registry: a composite of four (two edges), an edge-bound node and
    /// one more.
    #[must_use]
    pub fn reference_16() -> Self {
        Self::new(
            load(TEST_REFERENCE_REGISTRY, "test-reference.toml"),
            &["bench_availability", "vendor_profile", "capture_picture"],
        )
    }

    /// A generated 1,000-intent registry: a composite of two, two plain nodes, an edge-bound
    /// node and its provider.
    #[must_use]
    pub fn generated_1000() -> Self {
        Self::new(
            load(&generated_registry(1_000), "generated.toml"),
            &["intent_0999", "intent_0512", "intent_0020", "intent_0993", "intent_0995"],
        )
    }

    fn new(registry: Registry, proposal: &[&str]) -> Self {
        Self {
            registry,
            proposal: proposal.iter().map(|name| (*name).to_owned()).collect(),
            available: available_params(),
            scopes: vec!["bench".to_owned()],
        }
    }

    /// What `validate` takes besides the registry and the proposal.
    #[must_use]
    pub fn inputs(&self) -> Inputs<'_> {
        Inputs {
            available: &self.available,
            roles: planner_grammar::NO_ROLES,
            scopes: &self.scopes,
            refers: false,
        }
    }
}

/// Ten evidence tables of mixed cells.
#[must_use]
pub fn evidence_10_tables() -> Evidence {
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
            window: None,
            scope: Vec::new(),
        });
    }
    Evidence {
        tables,
        entities: vec!["Department of the Army".to_owned(), "541512".to_owned()],
        dropped: Vec::new(),
    }
}

/// The evidence of [`evidence_10_tables`] and a narration of about 1 KB drawn from it (the
/// template rendering cut at a line end).
#[must_use]
pub fn gate_input() -> (Evidence, String) {
    let evidence = evidence_10_tables();
    let full = planner_infer::TemplateNarrator::render(&evidence);
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
