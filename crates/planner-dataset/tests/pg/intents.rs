//! Every intent of the reference registry against seeded data, rendered.

use planner_dataset::DEMO_TENANTS;
use planner_exec::{Cell, render_text};
use planner_registry::Value;
use sqlx::PgPool;

use crate::fixture::{registry, run, sample_args, seeded};

#[sqlx::test(migrator = "planner_exec::MIGRATOR")]
async fn every_intent_answers_from_seeded_data(pool: PgPool) {
    seeded(&pool).await;
    let registry = registry();
    let args = sample_args(&pool).await;
    let tenant = DEMO_TENANTS[0].id;
    for intent in registry.intents() {
        let text = match intent.composite() {
            None => {
                let table = run(&pool, &registry, intent, &args, tenant).await.unwrap();
                // The columns the registry declares are the columns the answer shows (less the
                // cells a count row sums over).
                let declared: Vec<(&str, &str)> = intent
                    .query()
                    .unwrap()
                    .shown_columns()
                    .map(|c| (c.name.as_str(), c.ty.as_str()))
                    .collect();
                let returned: Vec<(&str, &str)> =
                    table.columns.iter().map(|c| (c.name.as_str(), c.ty.as_str())).collect();
                assert_eq!(declared, returned, "{}", intent.name);
                render_text(&table)
            }
            Some(composite) => {
                // The fixed sub-plan: members in order, edges binding downstream params.
                let mut args = args.clone();
                args.remove("agency");
                args.remove("naics");
                let mut out = String::new();
                for &member in &composite.members {
                    let member = registry.intent(member);
                    let table = run(&pool, &registry, member, &args, tenant).await.unwrap();
                    for edge in composite
                        .edges
                        .iter()
                        .filter(|edge| registry.intent(edge.from).name == member.name)
                    {
                        let column = &member.columns()[edge.column].name;
                        let values = table.distinct_values(column);
                        let [Cell::Text(value)] = values.as_slice() else {
                            panic!("edge {column}")
                        };
                        let param = registry.param(edge.param).name.as_str();
                        let param: &'static str =
                            if param == "agency" { "agency" } else { "naics" };
                        args.insert(param, Value::Text(value.clone()));
                    }
                    out.push_str(&format!("## {}\n{}\n", member.name, render_text(&table)));
                }
                out
            }
        };
        insta::assert_snapshot!(intent.name.as_str(), text);
    }
}

#[sqlx::test(migrator = "planner_exec::MIGRATOR")]
async fn the_data_set_is_deterministic(pool: PgPool) {
    // Candidates are digested over the columns the generator writes, not the derived
    // `compartment_bits` PostgreSQL computes from them.
    seeded(&pool).await;
    let digests: Vec<(String, i64, String)> = sqlx::query_as(
        "SELECT 'award', count(*), md5(string_agg(a::text, '|' ORDER BY a.id)) FROM market.award AS a
         UNION ALL
         SELECT 'vendor', count(*), md5(string_agg(v::text, '|' ORDER BY v.uei)) FROM market.vendor AS v
         UNION ALL
         SELECT 'subaward', count(*), md5(string_agg(s::text, '|' ORDER BY s.id)) FROM graph.subaward AS s
         UNION ALL
         SELECT 'candidate', count(*), md5(string_agg((c.id, c.tenant_id, c.clearance, c.clearance_rank, c.clearance_status, c.compartments, c.polygraph, c.labor_category, c.skills, c.available_from)::text, '|' ORDER BY c.id)) FROM bench.candidate AS c
         UNION ALL
         SELECT 'requirement', count(*), md5(string_agg(r::text, '|' ORDER BY r.id)) FROM capture.requirement AS r",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    insta::assert_debug_snapshot!(digests);
}
