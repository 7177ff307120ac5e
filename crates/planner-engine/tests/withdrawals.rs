//! Audit rows of answers never given are withdrawn: a run whose future is dropped (a caller's
//! timeout) or that fails after its audit write began leaves its id in `audit.withdrawn`, so that
//! `audit.answers_given` counts exactly the answers returned; a returned answer withdraws nothing.
//! The timing is made deterministic by holding the audit write on a lock from a second
//! connection: at the INSERT (the table locked) or at the COMMIT (a deferred trigger waiting for
//! an advisory lock).

use std::time::Duration;

use planner_engine::{Ask, Engine, EngineConfig, Error, Outcome};
use sqlx::{Connection as _, PgConnection, PgPool};

const QUESTION: &str = "How many of our bench hold TS/SCI?";
/// The advisory lock the deferred trigger of the COMMIT case waits for.
const HOLD: i64 = 4242;

async fn seeded(pool: &PgPool) {
    planner_engine::migrate(pool).await.unwrap();
    let options = planner_dataset::SeedOptions::demo(0.02);
    planner_dataset::seed(pool, &options).await.unwrap();
}

fn engine(pool: &PgPool) -> Engine {
    let config = EngineConfig::new(planner_registry::reference::registry().unwrap());
    Engine::new(config, pool.clone())
}

fn ask() -> Ask {
    Ask {
        question: QUESTION.to_owned(),
        scopes: vec!["bench".to_owned()],
        tenant: Some(planner_dataset::DEMO_TENANTS[0].id),
        key: None,
    }
}

/// Rows of the answer log, answers given, withdrawn ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Counts {
    logged: i64,
    given: i64,
    withdrawn: i64,
}

async fn counts(pool: &PgPool) -> Counts {
    let (logged, given, withdrawn): (i64, i64, i64) = sqlx::query_as(
        "SELECT (SELECT count(*) FROM audit.answer_log), \
                (SELECT count(*) FROM audit.answers_given), \
                (SELECT count(*) FROM audit.withdrawn)",
    )
    .fetch_one(pool)
    .await
    .unwrap();
    Counts { logged, given, withdrawn }
}

/// Polls `condition` every 20 ms for at most 30 s.
async fn eventually<F: AsyncFnMut() -> bool>(what: &str, mut condition: F) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while !condition().await {
        assert!(tokio::time::Instant::now() < deadline, "{what}: not within 30 s");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Waits until the engine has written every withdrawal it queued, and returns their total.
async fn settled(engine: &Engine) -> u64 {
    eventually("the withdrawals written", async || engine.pending_withdrawals() == 0).await;
    engine.withdrawn_total()
}

/// A connection of its own to the test database.
async fn second_connection(pool: &PgPool) -> PgConnection {
    PgConnection::connect_with(pool.connect_options().as_ref()).await.unwrap()
}

/// Waits until a backend of this database waits for a lock in the statement `like` matches.
async fn wait_for_lock_wait(pool: &PgPool, like: &str) {
    eventually("the audit write waiting for the lock", async || {
        let waiting: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM pg_stat_activity \
             WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE $1",
        )
        .bind(like)
        .fetch_one(pool)
        .await
        .unwrap();
        waiting > 0
    })
    .await;
}

/// Where the audit write is held.
#[derive(Debug, Clone, Copy)]
enum HeldAt {
    /// The INSERT waits for a lock on the table: the row never commits.
    Insert,
    /// The COMMIT waits (a deferred trigger): the row commits after the caller gave up.
    Commit,
}

async fn a_dropped_ask_withdraws_its_audit_row(pool: PgPool, held: HeldAt) {
    seeded(&pool).await;
    let engine = engine(&pool);
    let before = counts(&pool).await;
    let mut holder = second_connection(&pool).await;
    match held {
        HeldAt::Insert => {
            sqlx::raw_sql("BEGIN; LOCK TABLE audit.answer_log IN ACCESS EXCLUSIVE MODE")
                .execute(&mut holder)
                .await
                .unwrap();
        }
        HeldAt::Commit => {
            sqlx::raw_sql(
                "CREATE FUNCTION public.hold_audit_commit() RETURNS trigger LANGUAGE plpgsql AS $$
                 BEGIN PERFORM pg_advisory_xact_lock(4242); RETURN NULL; END $$;
                 CREATE CONSTRAINT TRIGGER hold_audit_commit AFTER INSERT ON audit.answer_log
                     DEFERRABLE INITIALLY DEFERRED
                     FOR EACH ROW EXECUTE FUNCTION public.hold_audit_commit();",
            )
            .execute(&pool)
            .await
            .unwrap();
            sqlx::query("SELECT pg_advisory_lock($1)")
                .bind(HOLD)
                .execute(&mut holder)
                .await
                .unwrap();
        }
    }

    let asking = {
        let engine = engine.clone();
        tokio::spawn(async move { engine.ask(ask()).await })
    };
    match held {
        HeldAt::Insert => wait_for_lock_wait(&pool, "INSERT INTO audit.answer_log%").await,
        HeldAt::Commit => wait_for_lock_wait(&pool, "COMMIT").await,
    }
    // The caller gives up while the audit write is held: the run's future is dropped.
    asking.abort();
    assert!(asking.await.unwrap_err().is_cancelled());
    // The withdrawal is written while the audit write is still held.
    assert_eq!(settled(&engine).await, 1, "{held:?}");
    // (The answer log is not read here: in the INSERT case the holder has it locked.)
    let withdrawn: i64 =
        sqlx::query_scalar("SELECT count(*) FROM audit.withdrawn").fetch_one(&pool).await.unwrap();
    assert_eq!(withdrawn, before.withdrawn + 1, "{held:?}");

    match held {
        HeldAt::Insert => sqlx::raw_sql("COMMIT").execute(&mut holder).await.map(drop).unwrap(),
        HeldAt::Commit => {
            sqlx::query("SELECT pg_advisory_unlock($1)")
                .bind(HOLD)
                .execute(&mut holder)
                .await
                .unwrap();
        }
    }
    // Nothing is waiting any more.
    eventually("the held audit write ended", async || {
        let waiting: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM pg_stat_activity \
             WHERE datname = current_database() AND wait_event_type = 'Lock'",
        )
        .fetch_one(&pool)
        .await
        .unwrap();
        waiting == 0
    })
    .await;
    if let HeldAt::Commit = held {
        // The commit completes although nobody waits for it any more: the row is in the log.
        eventually("the held commit completed", async || {
            counts(&pool).await.logged == before.logged + 1
        })
        .await;
    }
    let after = counts(&pool).await;
    assert_eq!(after.given, before.given, "{held:?}: {before:?} then {after:?}");
    assert_eq!(after.withdrawn, before.withdrawn + 1, "{held:?}: {before:?} then {after:?}");
    assert!(after.logged <= before.logged + 1, "{held:?}: {before:?} then {after:?}");
    assert_eq!(engine.pending_withdrawals(), 0);
    holder.close().await.unwrap();
}

#[sqlx::test]
async fn an_ask_dropped_while_its_audit_insert_waits_is_withdrawn(pool: PgPool) {
    a_dropped_ask_withdraws_its_audit_row(pool, HeldAt::Insert).await;
}

#[sqlx::test]
async fn an_ask_dropped_while_its_audit_commit_waits_is_withdrawn(pool: PgPool) {
    a_dropped_ask_withdraws_its_audit_row(pool, HeldAt::Commit).await;
}

#[sqlx::test]
async fn an_answer_returned_withdraws_nothing(pool: PgPool) {
    seeded(&pool).await;
    let engine = engine(&pool);
    let before = counts(&pool).await;
    for _ in 0..3 {
        let outcome = engine.ask(ask()).await.unwrap();
        assert!(matches!(outcome, Outcome::Answered(_)), "{outcome:?}");
    }
    assert_eq!(settled(&engine).await, 0);
    let after = counts(&pool).await;
    assert_eq!(
        after,
        Counts { logged: before.logged + 3, given: before.given + 3, withdrawn: before.withdrawn }
    );
}

#[sqlx::test]
async fn a_failed_audit_write_is_withdrawn_and_no_answer_is_given(pool: PgPool) {
    seeded(&pool).await;
    sqlx::query("REVOKE INSERT ON audit.answer_log FROM planner_audit")
        .execute(&pool)
        .await
        .unwrap();
    let engine = engine(&pool);
    let before = counts(&pool).await;
    let result = engine.ask(ask()).await;
    assert!(matches!(result, Err(Error::AuditFailed(_))), "{result:?}");
    // The write began, so its id is withdrawn although no row committed.
    assert_eq!(settled(&engine).await, 1);
    let after = counts(&pool).await;
    assert_eq!(
        after,
        Counts { logged: before.logged, given: before.given, withdrawn: before.withdrawn + 1 }
    );
}
