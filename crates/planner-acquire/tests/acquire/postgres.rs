//! PostgreSQL: full-text search over the stored documents, and threads checkpointed there,
//! interrupted with one checkpointer and resumed with another (another process's view of the
//! same database) to the same result as an uninterrupted run.

use std::sync::Arc;

use planner_acquire::{Acquirer, Corpus, Progress, store_documents};
use planner_graph::{Durability, PgCheckpointer};
use sqlx::PgPool;

use crate::{
    fixtures::{documents, profile},
    flows::{Answers, assert_clean, coffee_answers, ctx, drive, idea, trace, walking_answers},
};

async fn migrated(pool: &PgPool) {
    planner_graph::MIGRATOR.run(pool).await.unwrap();
    planner_acquire::MIGRATOR.run(pool).await.unwrap();
    store_documents(pool, &documents()).await.unwrap();
}

async fn ids(corpus: &Corpus, query: &str) -> Vec<String> {
    corpus.search(query).await.unwrap().into_iter().map(|it| it.id).collect()
}

#[sqlx::test(migrations = false)]
async fn full_text_search_is_ranked_and_conjunctive(pool: PgPool) {
    migrated(&pool).await;
    let corpus = Corpus::Postgres(pool.clone());
    assert_eq!(ids(&corpus, "monthly rent berlin, germany").await, ["ber-rent-2025"]);
    assert_eq!(ids(&corpus, "dog walker usage manchester, uk").await, Vec::<String>::new());
    assert_eq!(ids(&corpus, "dog walker usage").await, ["uk-walkers-2024"]);
    // Stemming: plural and singular forms meet.
    assert_eq!(ids(&corpus, "prices per walk manchester").await, ["man-walk-price-2025"]);
    // Ranked: the document about the ticket in Berlin comes before the one in Munich.
    let ranked = ids(&corpus, "average ticket germany").await;
    assert_eq!(ranked.first().map(String::as_str), Some("ber-ticket-2025"), "{ranked:?}");
    assert!(ranked.contains(&"muc-ticket-2025".to_owned()));
    // Hostile text is only ever a query.
    assert!(ids(&corpus, "'); DROP TABLE acquire_documents; --").await.is_empty());
    // Storing again replaces, never duplicates.
    store_documents(&pool, &documents()).await.unwrap();
    let count: i64 = sqlx::query_scalar("SELECT count(*) FROM acquire_documents")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(count, documents().len() as i64);
}

async fn pg_acquirer(pool: &PgPool, name: &str) -> Acquirer {
    let store = Arc::new(PgCheckpointer::new(pool.clone()));
    Acquirer::new(ctx(profile(name), Corpus::Postgres(pool.clone())), store, Durability::Async)
}

async fn interrupted_then_resumed(pool: &PgPool, name: &str, answers: &Answers, thread: &str) {
    // Uninterrupted, in one go.
    let whole = pg_acquirer(pool, name).await;
    let (expected, _) =
        drive(&whole, &format!("{thread}-whole"), idea(&profile(name)), answers).await;
    assert_eq!(expected.status, planner_acquire::RunStatus::Completed, "{}", trace(&expected));

    // Started by one checkpointer, which then goes away.
    let first = pg_acquirer(pool, name).await;
    let Progress::Asked(question) = first.start(thread, idea(&profile(name))).await.unwrap() else {
        panic!("a question first")
    };
    drop(first);

    // Every later answer comes from a fresh checkpointer on the same database.
    let mut question = question;
    let report = loop {
        let key = match &question.component {
            Some(component) => format!("{}.{component}", question.field),
            None => question.field.clone(),
        };
        let answer = answers.get(key.as_str()).copied().unwrap_or("no idea");
        let next = pg_acquirer(pool, name).await;
        match next.answer(thread, answer).await.unwrap() {
            Progress::Done(report) => {
                for checkpoint in next.graph().history(thread).await.unwrap() {
                    assert_clean(&checkpoint);
                }
                break report;
            }
            Progress::Asked(asked) => question = asked,
        }
    };
    assert_eq!(*report, expected);
}

#[sqlx::test(migrations = false)]
async fn a_coffee_shop_thread_resumed_elsewhere_ends_as_an_uninterrupted_one(pool: PgPool) {
    migrated(&pool).await;
    interrupted_then_resumed(&pool, "coffee_shop", &coffee_answers(), "shop").await;
}

#[sqlx::test(migrations = false)]
async fn a_dog_walking_thread_resumed_elsewhere_ends_as_an_uninterrupted_one(pool: PgPool) {
    migrated(&pool).await;
    interrupted_then_resumed(&pool, "dog_walking", &walking_answers(), "walk").await;
}

#[sqlx::test(migrations = false)]
async fn postgres_and_memory_search_give_the_same_run(pool: PgPool) {
    migrated(&pool).await;
    let p = profile("coffee_shop");
    let on_pg = pg_acquirer(&pool, "coffee_shop").await;
    let (pg, _) = drive(&on_pg, "pg", idea(&p), &coffee_answers()).await;
    let store = Arc::new(planner_graph::MemoryCheckpointer::new());
    let in_memory =
        Acquirer::new(ctx(p.clone(), Corpus::Memory(documents())), store, Durability::Async);
    let (memory, _) = drive(&in_memory, "memory", idea(&p), &coffee_answers()).await;
    assert_eq!(pg, memory);
}
