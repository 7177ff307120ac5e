//! The model narrator's pass rate at the faithfulness gate: evidence samples shaped like the
//! reference registry's answers (money, windows, withheld counts, a dropped node), narrated by
//! a model and checked. The `llm_check` example measures it on a real model; the tests here run
//! the same measurement against the fake server, both ways.

use planner_infer::{
    Cell, DroppedIntent, Evidence, EvidenceTable, GateConfig, Miss, Narrator, Window,
    check_faithfulness,
};
use planner_registry::{DurationUnit, WindowDirection};

/// `count` evidence samples with the question each answers, the same for the same count.
pub fn samples(count: usize) -> Vec<(String, Evidence)> {
    const VENDORS: [(&str, &str); 4] = [
        ("TTP4GAUL56CU", "Juniper Analytics Inc."),
        ("QXBVBDU6V954", "Apex Federal LLC"),
        ("MSB3KL6YZM6F", "Meridian Defense Partners LLC"),
        ("KSP7Q6HLWTE4", "Vanguard Federal LLC"),
    ];
    let text = |value: &str| Cell::Text(value.to_owned());
    (0..count)
        .map(|sample| {
            let months = [12i64, 24, 36][sample % 3];
            let rows = VENDORS
                .iter()
                .enumerate()
                .take(2 + sample % 3)
                .map(|(rank, (uei, name))| {
                    let cents = 71_593_681u64 / (rank as u64 + 1) + sample as u64 * 101;
                    vec![
                        text(uei),
                        text(name),
                        Cell::Int(1 + rank as i64),
                        Cell::Money(format!("{}.{:02}", cents / 100, cents % 100)),
                    ]
                })
                .collect();
            let mut tables = vec![EvidenceTable {
                intent: "top_incumbents".to_owned(),
                columns: ["uei", "name", "awards", "obligated"].map(str::to_owned).to_vec(),
                rows,
                window: Some(Window {
                    length: months,
                    unit: DurationUnit::Month,
                    direction: WindowDirection::Past,
                    as_of: Some("2026-09-30".to_owned()),
                }),
                scope: Vec::new(),
            }];
            let mut question = format!(
                "Who are the incumbents at the Department of the Army under NAICS 541512 over \
                 the last {months} months"
            );
            if sample % 2 == 1 {
                question.push_str(" and how many of our bench hold TS/SCI");
                tables.push(EvidenceTable {
                    intent: "bench_clearance_counts".to_owned(),
                    columns: ["availability", "candidates"].map(str::to_owned).to_vec(),
                    rows: vec![
                        vec![text("now"), Cell::Int(14 + sample as i64)],
                        vec![text("within 1 month"), Cell::Suppressed { k: 11 }],
                    ],
                    window: None,
                    scope: Vec::new(),
                });
            }
            let dropped = if sample % 4 == 3 {
                vec![DroppedIntent {
                    intent: "upcoming_recompetes".to_owned(),
                    reason: "the answer's deadline passed first".to_owned(),
                }]
            } else {
                Vec::new()
            };
            question.push('?');
            let entities = vec!["Department of the Army".to_owned(), "541512".to_owned()];
            (question, Evidence { tables, entities, dropped })
        })
        .collect()
}

/// What narrating the samples gave.
#[derive(Debug, Default)]
pub struct PassRate {
    /// Narrations that passed the gate.
    pub passed: usize,
    /// Narrations written (a narrator error counts as a failure).
    pub total: usize,
    /// Narrator errors.
    pub errors: usize,
    /// Failed narrations by the kind of their first miss, in kind order.
    pub misses: std::collections::BTreeMap<&'static str, usize>,
}

impl PassRate {
    /// One line for a report.
    pub fn summary(&self) -> String {
        let rate = self.passed as f64 / self.total.max(1) as f64;
        let misses: Vec<String> =
            self.misses.iter().map(|(kind, count)| format!("{kind} {count}")).collect();
        format!(
            "narrations {} | passed the gate {} ({rate:.2}) | narrator errors {} | first misses: {}",
            self.total,
            self.passed,
            self.errors,
            if misses.is_empty() { "none".to_owned() } else { misses.join(", ") }
        )
    }
}

/// Narrates every sample with `narrator` and checks each against its evidence.
pub async fn pass_rate(narrator: &dyn Narrator, samples: &[(String, Evidence)]) -> PassRate {
    let config = GateConfig::reference();
    let mut rate = PassRate::default();
    for (question, evidence) in samples {
        rate.total += 1;
        let Ok(narration) = narrator.narrate(question, evidence).await else {
            rate.errors += 1;
            continue;
        };
        let verdict = check_faithfulness(&narration, evidence, &config);
        match verdict.misses.first() {
            None => rate.passed += 1,
            Some(miss) => {
                let kind = match miss {
                    Miss::Number(_) => "number",
                    Miss::Date(_) => "date",
                    Miss::Entity(_) => "entity",
                    Miss::SuppressedNumber(_) => "suppressed number",
                    Miss::RanksPeople(_) => "ranks people",
                    Miss::Dash(_) => "dash",
                };
                *rate.misses.entry(kind).or_default() += 1;
            }
        }
    }
    rate
}

#[cfg(test)]
mod tests {
    use planner_infer::{ModelClient, ModelConfig, ModelNarrator, TemplateNarrator};

    use super::*;
    use crate::fake_server::{FakeServer, Reply};

    fn narrator(server: &FakeServer) -> ModelNarrator {
        let config = ModelConfig::with_defaults(&server.base_url, "local");
        ModelNarrator::new(ModelClient::new(config, None).unwrap())
    }

    #[tokio::test]
    async fn the_template_passes_on_every_sample() {
        let samples = samples(8);
        let rate = pass_rate(&TemplateNarrator, &samples).await;
        assert_eq!((rate.passed, rate.total), (8, 8), "{}", rate.summary());
    }

    #[tokio::test]
    async fn a_faithful_model_passes_and_an_unfaithful_one_is_counted_by_its_miss() {
        let samples = samples(4);
        let faithful = FakeServer::always(Reply::content(
            "Juniper Analytics Inc. obligated $715,936.81 over the last 12 months.",
        ))
        .await;
        let rate = pass_rate(&narrator(&faithful), &samples[..1]).await;
        assert_eq!((rate.passed, rate.total), (1, 1), "{}", rate.summary());
        let dashed = FakeServer::always(Reply::content(
            "Juniper Analytics Inc. leads \u{2014} it holds 1 award.",
        ))
        .await;
        let rate = pass_rate(&narrator(&dashed), &samples).await;
        assert_eq!((rate.passed, rate.misses.get("dash").copied()), (0, Some(4)));
        let invented =
            FakeServer::always(Reply::content("Apex Federal LLC obligated $9,999.99.")).await;
        let rate = pass_rate(&narrator(&invented), &samples).await;
        assert_eq!(rate.misses.get("number").copied(), Some(4), "{}", rate.summary());
        assert!(rate.summary().starts_with("narrations 4 | passed the gate 0 (0.00)"));
    }
}
