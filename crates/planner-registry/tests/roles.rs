//! Roles: two params of one kind told apart as the ends of a directed pair. The lanes registry
//! loads with them; each load rule rejects its mistake with its place.

use planner_registry::{ParamKind, Registry, Role};

const LANES: &str = include_str!("../../../fixtures/registry/lanes.toml");

/// The problems of a file that must not load, as `line:column: message`.
#[track_caller]
fn problems(text: &str) -> String {
    match Registry::from_toml(text, "broken.toml") {
        Ok(_) => panic!("the file loaded"),
        Err(err) => err.located().join("\n"),
    }
}

/// A registry of one hub kind (and kinds of every other type), the given `[params]` lines and
/// one intent taking `uses`, hub params compared in its SQL's `WHERE`.
fn file(params: &str, uses: &str) -> String {
    let count = uses.matches("name =").count();
    let filter: Vec<String> = (1..=count).map(|n| format!("s.hub = ${n}::text")).collect();
    let filter =
        if filter.is_empty() { String::new() } else { format!(" WHERE {}", filter.join(" AND ")) };
    format!(
        r#"[registry]
node_cap = 6
default_k = 11
allowed_schemas = ["freight"]

[planes]
freight = {{ tenant = false, schemas = ["freight"] }}

[kinds.hub]
type = "dictionary"
values = [{{ value = "Seattle" }}, {{ value = "Denver" }}]

[kinds.top_n]
type = "integer"
cues = ["top"]

[kinds.days]
type = "duration"
unit = "day"

[kinds.period]
type = "date_range"

[kinds.shipment]
type = "uuid"

[kinds.day]
type = "date"

[kinds.modes]
type = "list"
values = [{{ value = "rail" }}, {{ value = "road" }}]
context = ["modes"]

[params]
{params}

[[intent]]
name = "lane"
description = "One lane."
plane = "freight"
params = [{uses}]
sql = "SELECT 1 AS one FROM freight.shipments AS s{filter}"
columns = [{{ name = "one", type = "int" }}]
"#
    )
}

#[test]
fn the_lanes_registry_loads_with_its_roles() {
    let registry = Registry::from_toml(LANES, "lanes.toml").unwrap();
    let hub = registry.kind_named("hub").unwrap();
    let name = |id| registry.param(id).name.as_str();
    assert_eq!(registry.param_of_kind(hub).map(name), Some("hub"));
    assert_eq!(registry.param_of_role(hub, None).map(name), Some("hub"));
    assert_eq!(registry.param_of_role(hub, Some(Role::From)).map(name), Some("origin"));
    assert_eq!(registry.param_of_role(hub, Some(Role::To)).map(name), Some("destination"));
    assert!(registry.has_roles(hub));
    assert!(!registry.has_roles(registry.kind_named("carrier").unwrap()));

    let lane = registry.intent(registry.intent_id("lane_volume").unwrap());
    let roles: Vec<(ParamKind, Option<Role>)> =
        lane.params.iter().map(|p| (p.kind, p.role)).collect();
    let grain = registry.kind_named("grain").unwrap();
    assert_eq!(roles, [(hub, Some(Role::From)), (hub, Some(Role::To)), (grain, None)]);

    // The edge's column provides a role param by name.
    let destination = registry.param_of_role(hub, Some(Role::To)).unwrap();
    let providers: Vec<&str> = registry
        .providers_of(destination)
        .iter()
        .map(|&id| registry.intent(id).name.as_str())
        .collect();
    assert_eq!(providers, ["top_destinations"]);
}

#[test]
fn the_role_names_are_closed() {
    assert_eq!(Role::from_name("from"), Some(Role::From));
    assert_eq!(Role::from_name("to"), Some(Role::To));
    assert_eq!(Role::from_name("source"), None);
    assert_eq!(Role::From.other(), Role::To);
    assert_eq!((Role::From.noun(), Role::To.noun()), ("origin", "destination"));
}

#[test]
fn two_params_of_one_kind_load_when_their_roles_differ() {
    let text = file(
        r#"origin = { kind = "hub", role = "from" }
destination = { kind = "hub", role = "to" }"#,
        r#"{ name = "origin" }, { name = "destination" }"#,
    );
    let registry = Registry::from_toml(&text, "ok.toml").unwrap();
    let intent = &registry.intents()[0];
    assert_eq!(intent.params.len(), 2);
}

#[test]
fn two_params_of_one_kind_without_roles_are_rejected() {
    let text = file(
        r#"origin = { kind = "hub" }
destination = { kind = "hub" }"#,
        "",
    );
    assert_eq!(
        problems(&text),
        "broken.toml:36:19: kind hub is already declared by another param: each kind has at most one param \
         (two params of one kind need different roles, `role = \"from\"` and `role = \"to\"`)"
    );
}

#[test]
fn two_params_of_one_kind_with_one_role_are_rejected() {
    let text = file(
        r#"origin = { kind = "hub", role = "from" }
start = { kind = "hub", role = "from" }"#,
        "",
    );
    assert_eq!(
        problems(&text),
        "broken.toml:37:32: kind hub with role from is already declared by another param: each kind has at \
         most one param per role"
    );
}

#[test]
fn an_intent_may_not_mix_a_role_param_and_a_plain_one_of_one_kind() {
    let text = file(
        r#"hub = { kind = "hub" }
origin = { kind = "hub", role = "from" }"#,
        r#"{ name = "hub" }, { name = "origin" }"#,
    );
    assert_eq!(
        problems(&text),
        "broken.toml:43:38: intent `lane` holds params `hub` and `origin` of one kind, hub: an intent may \
         hold two params of one kind only when both carry different roles (`role = \"from\"` \
         and `role = \"to\"`)"
    );
}

#[test]
fn an_unknown_role_is_rejected_naming_the_allowed_ones() {
    let text = file(r#"origin = { kind = "hub", role = "source" }"#, "");
    assert_eq!(
        problems(&text),
        "broken.toml:36:33: unknown role `source` for param `origin`: expected one of from, to (the source \
         and the goal end of a directed pair)"
    );
}

#[test]
fn kinds_whose_values_are_no_ends_take_no_role() {
    for kind in ["top_n", "days", "period", "shipment", "day", "modes", "months", "uuid"] {
        let text = file(&format!(r#"first = {{ kind = "{kind}", role = "from" }}"#), "");
        let found = problems(&text);
        assert!(
            found.starts_with(&format!("broken.toml:36:{}: ", 29 + kind.len()))
                && found.contains(&format!(
                    "param `first` of kind {kind} cannot take a role: only a dictionary, code or \
                 quoted-text kind names a thing that can be one end of a pair"
                )),
            "{kind}: {found}"
        );
    }
}
