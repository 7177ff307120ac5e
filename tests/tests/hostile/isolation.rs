//! Tenant isolation through the HTTP API, as a property: random tenants (created with
//! `planner_exec::create_tenant`), their keys (`create_api_key`, with or without the bench
//! scope), requirements and bench candidates carrying markers unique to their tenant, and random
//! questions by one tenant about its own or another tenant's requirements and bench. No reply
//! ever holds another tenant's marker (a requirement title or a candidate's labor category),
//! while a tenant asking about its own requirement does see its title.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use planner_exec::{create_api_key, create_tenant};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use sqlx::PgPool;
use uuid::Uuid;

use crate::http::{Served, ask, client, seed_demo, unlimited};

const AGENCIES: [&str; 4] = [
    "Department of the Army",
    "Department of the Navy",
    "Defense Information Systems Agency",
    "Department of Homeland Security",
];
const NAICS: [&str; 4] = ["541512", "541511", "541330", "541519"];
const CLEARANCES: [(&str, i16); 4] =
    [("confidential", 1), ("secret", 2), ("top_secret", 3), ("ts_sci", 4)];
const COMPARTMENTS: [&str; 4] = ["G", "HCS", "SI", "TK"];

#[derive(Debug, Clone)]
struct RequirementSpec {
    agency: usize,
    naics: usize,
    clearance: usize,
    compartments: Vec<bool>,
    seats: i32,
}

#[derive(Debug, Clone)]
struct CandidateSpec {
    clearance: usize,
    compartments: Vec<bool>,
    labor: usize,
    available_in_days: i32,
}

#[derive(Debug, Clone)]
struct TenantSpec {
    bench_scope: bool,
    requirements: Vec<RequirementSpec>,
    candidates: Vec<CandidateSpec>,
}

/// A question by `asker` about a requirement of `owner` (indexes, modulo their lengths, into the
/// world's tenants and that tenant's requirements), in one of the templates.
#[derive(Debug, Clone)]
struct AskSpec {
    asker: usize,
    owner: usize,
    requirement: usize,
    template: usize,
}

#[derive(Debug, Clone)]
struct World {
    tenants: Vec<TenantSpec>,
    asks: Vec<AskSpec>,
}

const TEMPLATES: [&str; 7] = [
    "Summarize requirement {id}",
    "Who is the incumbent on requirement {id}?",
    "Which of our candidates fit requirement {id}?",
    "Give me the capture picture for requirement {id}",
    "How many of our bench hold a Secret clearance?",
    "Who on the bench becomes available in the next 6 months?",
    "How many candidates do we have with TS/SCI and SI/TK?",
];

fn world() -> impl Strategy<Value = World> {
    let requirement = (
        0..AGENCIES.len(),
        0..NAICS.len(),
        0..4usize,
        prop::collection::vec(any::<bool>(), 4),
        1..20i32,
    )
        .prop_map(|(agency, naics, clearance, compartments, seats)| RequirementSpec {
            agency,
            naics,
            clearance,
            compartments,
            seats,
        });
    let candidate = (0..4usize, prop::collection::vec(any::<bool>(), 4), 0..3usize, -30..200i32)
        .prop_map(|(clearance, compartments, labor, available_in_days)| CandidateSpec {
            clearance,
            compartments,
            labor,
            available_in_days,
        });
    let tenant = (
        any::<bool>(),
        prop::collection::vec(requirement, 1..4),
        prop::collection::vec(candidate, 0..16),
    )
        .prop_map(|(bench_scope, requirements, candidates)| TenantSpec {
            bench_scope,
            requirements,
            candidates,
        });
    let one_ask = (0..8usize, 0..8usize, 0..8usize, 0..TEMPLATES.len()).prop_map(
        |(asker, owner, requirement, template)| AskSpec { asker, owner, requirement, template },
    );
    (prop::collection::vec(tenant, 2..4), prop::collection::vec(one_ask, 3..8))
        .prop_map(|(tenants, asks)| World { tenants, asks })
}

/// A tenant as created: its key, its requirements' ids and titles, and all its markers.
struct Created {
    key: String,
    requirements: Vec<(Uuid, String)>,
    markers: Vec<String>,
}

/// Creates `world`'s tenants; `case` makes names and markers unique across cases. Markers have
/// one length, so that no marker is part of another.
async fn create(pool: &PgPool, case: usize, world: &World) -> Vec<Created> {
    let mut created = Vec::new();
    for (t, spec) in world.tenants.iter().enumerate() {
        let tenant =
            create_tenant(pool, &format!("isolation tenant {case:04}-{t:02}")).await.unwrap();
        let scopes: &[&str] = if spec.bench_scope { &["bench"] } else { &[] };
        let key = create_api_key(pool, tenant, scopes).await.unwrap().secret;
        let mut requirements = Vec::new();
        let mut markers = Vec::new();
        for (r, requirement) in spec.requirements.iter().enumerate() {
            let id = Uuid::new_v4();
            let title = format!("QZXREQ{case:04}T{t:02}R{r:02} modernization");
            let compartments: Vec<&str> = COMPARTMENTS
                .iter()
                .zip(&requirement.compartments)
                .filter(|(_, on)| **on)
                .map(|(name, _)| *name)
                .collect();
            sqlx::query(
                "INSERT INTO capture.requirement (id, tenant_id, title, agency, naics, clearance, \
                 compartments, seats, due_date) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, \
                 (SELECT as_of + 60 FROM market.snapshot))",
            )
            .bind(id)
            .bind(tenant.0)
            .bind(&title)
            .bind(AGENCIES[requirement.agency])
            .bind(NAICS[requirement.naics])
            .bind(CLEARANCES[requirement.clearance].0)
            .bind(&compartments)
            .bind(requirement.seats)
            .execute(pool)
            .await
            .unwrap();
            markers.push(title.clone());
            requirements.push((id, title));
        }
        for candidate in &spec.candidates {
            let labor = format!("QZXLAB{case:04}T{t:02}K{:02}", candidate.labor);
            let compartments: Vec<&str> = COMPARTMENTS
                .iter()
                .zip(&candidate.compartments)
                .filter(|(_, on)| **on)
                .map(|(name, _)| *name)
                .collect();
            let (clearance, rank) = CLEARANCES[candidate.clearance];
            sqlx::query(
                "INSERT INTO bench.candidate (id, tenant_id, clearance, clearance_rank, \
                 clearance_status, compartments, polygraph, labor_category, available_from) \
                 VALUES ($1, $2, $3, $4, 'active', $5, 'none', $6, \
                 (SELECT as_of + $7 FROM market.snapshot))",
            )
            .bind(Uuid::new_v4())
            .bind(tenant.0)
            .bind(clearance)
            .bind(rank)
            .bind(&compartments)
            .bind(&labor)
            .bind(candidate.available_in_days)
            .execute(pool)
            .await
            .unwrap();
            if !markers.contains(&labor) {
                markers.push(labor);
            }
        }
        created.push(Created { key, requirements, markers });
    }
    created
}

#[sqlx::test]
async fn no_answer_holds_another_tenants_rows(pool: PgPool) {
    seed_demo(&pool).await;
    let served = Served::start(&pool, unlimited()).await;
    let base = served.base.clone();
    let handle = tokio::runtime::Handle::current();
    // Markers of every tenant created so far, with the tenant's id: earlier cases' tenants
    // stay in the database and must stay invisible too.
    // The demo tenants' requirement titles belong to none of them.
    let demo =
        planner_dataset::DEMO_REQUIREMENTS.iter().map(|it| (usize::MAX, it.title.to_owned()));
    let all_markers: Mutex<Vec<(usize, String)>> = Mutex::new(demo.collect());
    let requests = AtomicUsize::new(0);
    let own_titles_seen = AtomicUsize::new(0);
    let outcome = tokio::task::spawn_blocking(move || {
        let client = client();
        let cases = AtomicUsize::new(0);
        let config = Config { cases: 16, failure_persistence: None, ..Config::default() };
        let mut runner = TestRunner::new(config);
        let result = runner.run(&world(), |world| {
            let case = cases.fetch_add(1, Ordering::Relaxed);
            let created = handle.block_on(create(&pool, case, &world));
            let first_owner = case * 8;
            {
                let mut markers = all_markers.lock().unwrap();
                for (t, tenant) in created.iter().enumerate() {
                    markers.extend(tenant.markers.iter().map(|m| (first_owner + t, m.clone())));
                }
            }
            // Each case also has the first tenant summarize its own first requirement.
            let own = AskSpec { asker: 0, owner: 0, requirement: 0, template: 0 };
            for spec in world.asks.iter().chain(std::iter::once(&own)) {
                let asker = spec.asker % created.len();
                let owner = spec.owner % created.len();
                let requirements = &created[owner].requirements;
                let (id, title) = &requirements[spec.requirement % requirements.len()];
                let question = TEMPLATES[spec.template].replace("{id}", &id.to_string());
                let reply = handle.block_on(ask(&client, &base, &created[asker].key, &question));
                requests.fetch_add(1, Ordering::Relaxed);
                if reply.status != 200 {
                    return Err(TestCaseError::fail(format!(
                        "{question}: {} {}",
                        reply.status, reply.text
                    )));
                }
                let leaked: Vec<String> = all_markers
                    .lock()
                    .unwrap()
                    .iter()
                    .filter(|(tenant, marker)| {
                        *tenant != first_owner + asker && reply.text.contains(marker.as_str())
                    })
                    .map(|(_, marker)| marker.clone())
                    .collect();
                if !leaked.is_empty() {
                    return Err(TestCaseError::fail(format!(
                        "tenant {asker} asked {question:?} and saw {leaked:?}: {}",
                        reply.text
                    )));
                }
                let answered = reply.json()["status"] == "answered";
                if asker == owner && spec.template == 0 && answered {
                    if !reply.text.contains(title.as_str()) {
                        return Err(TestCaseError::fail(format!(
                            "the owner does not see its own requirement {title}: {}",
                            reply.text
                        )));
                    }
                    own_titles_seen.fetch_add(1, Ordering::Relaxed);
                }
            }
            Ok(())
        });
        (result.map_err(|err| err.to_string()), requests.into_inner(), own_titles_seen.into_inner())
    })
    .await
    .unwrap();
    let (result, requests, own_titles_seen) = outcome;
    result.unwrap_or_else(|err| panic!("{err} (after {requests} requests)"));
    assert!(requests >= 48, "{requests}");
    // The property is not vacuous: owners saw their own requirements.
    assert!(own_titles_seen >= 16, "no owner ever asked about its own requirement");
    served.stop().await;
}
