//! Picking out workers on registries a new user wrote (`fixtures/domains/property` and
//! `restaurants`, each with a `workforce = true` plane): the registry's workforce named inside a
//! value (a role list's value naming the workers), or by another way of writing that value
//! ("techs"), is still people at work, and a plural that is a verb before a determiner is what
//! its subject does ("which server racks up the most voids"). Counting them stays answerable.

use std::path::Path;

#[path = "support/planned.rs"]
mod planned;

use planner_engine::{Planner, Route};
use planner_registry::Registry;

fn planner(domain: &str) -> Planner {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/domains").join(domain);
    let text = std::fs::read_to_string(dir.join("registry.toml")).unwrap();
    let files = |name: &str| std::fs::read_to_string(dir.join(name)).map_err(|e| e.to_string());
    Planner::new(Registry::from_toml_with(&text, "registry.toml", &files).unwrap(), None, 1)
}

fn route(planner: &Planner, question: &str) -> Route {
    planned::planned(planner, question).0
}

#[test]
fn the_workforce_inside_a_value_is_still_people_at_work() {
    let property = planner("property");
    for question in [
        "Rank the maintenance technicians by jobs finished this year",
        "rank our techs on how fast they close work orders",
        "Top 3 leasing agents by signed leases",
    ] {
        assert_eq!(route(&property, question), Route::Refused, "{question}");
    }
    for question in [
        "How many maintenance technicians do we employ?",
        "headcount for every staff role, company wide",
    ] {
        assert_ne!(route(&property, question), Route::Refused, "{question}");
    }
}

#[test]
fn a_verb_after_a_worker_is_what_the_worker_does() {
    let restaurants = planner("restaurants");
    // "wastes" is also a kind of loss the registry lists: before "the most", a verb.
    for question in [
        "which server racks up the most voids",
        "Which bartender pours the most comps?",
        "which line cook wastes the most produce",
    ] {
        assert_eq!(route(&restaurants, question), Route::Refused, "{question}");
    }
    assert_ne!(route(&restaurants, "which location racks up the most voids"), Route::Refused);
}

#[test]
fn a_possessor_is_the_determiner_of_the_people_after_it() {
    // "last quarter's applicants" is headed by the applicants: an age given of them is theirs.
    let property = planner("property");
    let question = "how many of last quarter's applicants were over 65?";
    assert_eq!(route(&property, question), Route::Refused, "{question}");
}

#[test]
fn a_chat_abbreviation_of_time_is_no_person() {
    // "rn" closing a clause is "right now", not a registered nurse ranked by a rating.
    let restaurants = planner("restaurants");
    let question = "what's the google rating at Ballard rn";
    assert_ne!(route(&restaurants, question), Route::Refused, "{question}");
    assert_eq!(route(&restaurants, "which rn works the most doubles"), Route::Refused);
}

#[test]
fn an_age_is_read_within_its_sentence_and_of_the_person_before_it() {
    // The noun after "over 60" in the next sentence is no unit of the number.
    let waste = planner("waste");
    let question = "how many of our drivers are over 55? thinking about retirements";
    assert_eq!(route(&waste, question), Route::Refused, "{question}");
    // A person noun before "age" says whose age it is, beside things.
    let pharmacy = planner("pharmacy");
    let question = "shots given by patient age";
    assert_eq!(route(&pharmacy, question), Route::Refused, "{question}");
    let question = "write-offs by stock age";
    assert_ne!(route(&pharmacy, question), Route::Refused, "{question}");
    // "Aged" before a thing is its ageing, whoever the things are for; before people, an age.
    let question = "aged receivables for commercial customers";
    assert_ne!(route(&waste, question), Route::Refused, "{question}");
    assert_eq!(route(&waste, "aged customers by area"), Route::Refused);
}

#[test]
fn a_counted_column_names_its_workers_by_its_people_words_alone() {
    // The staff plane counts `part_time` and `headcount`: a "part" or a "time" is no worker.
    let pharmacy = planner("pharmacy");
    for question in ["rate the part time share of claims", "claim denial rate on Part D plans"] {
        assert_ne!(route(&pharmacy, question), Route::Refused, "{question}");
    }
    assert_eq!(route(&pharmacy, "rank the immunizers by doses given"), Route::Refused);
}
