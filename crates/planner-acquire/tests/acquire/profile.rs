//! Profiles: the fixtures load; every kind of mistake is reported with its line and column.

use planner_acquire::{Kind, Profile, ProfileError, Source};

use crate::fixtures::profile;

fn problems(text: &str) -> Vec<String> {
    match Profile::parse(text, "p.toml") {
        Ok(_) => panic!("expected problems"),
        Err(ProfileError::Invalid { problems, .. }) => {
            problems.iter().map(ToString::to_string).collect()
        }
        Err(other) => panic!("unexpected {other}"),
    }
}

const HEAD: &str = "name = \"p\"\ntitle = \"t\"\n[caps]\nmax_iters = 5\nmax_attempts_per_field = 2\nmax_calculation_attempts = 1\n";

fn field(name: &str, kind: &str, source: &str) -> String {
    format!(
        "[[field]]\nname = \"{name}\"\ntype = \"{kind}\"\nsource = \"{source}\"\nlabel = \"L\"\nquestion = \"Q?\"\n"
    )
}

#[test]
fn both_demo_profiles_load() {
    let shop = profile("coffee_shop");
    assert_eq!(shop.fields.len(), 8);
    assert_eq!(shop.field("staff_cost").unwrap().components.as_ref().unwrap().components.len(), 2);
    assert!(shop.field("startup_costs").unwrap().proactive);
    assert_eq!(shop.calculator.as_ref().unwrap().outputs.len(), 3);
    let walking = profile("dog_walking");
    assert_eq!(walking.field("dog_households").unwrap().source, Source::Derived);
    assert_eq!(walking.field("price_per_walk").unwrap().kind, Kind::Money);
    assert_eq!(walking.recipes.len(), 2);
}

#[test]
fn toml_and_type_errors_are_located() {
    let text = format!("{HEAD}{}", field("rent", "money", "internet"));
    let found = problems(&text);
    assert_eq!(found.len(), 1);
    assert!(found[0].starts_with("10:10: unknown variant `internet`"), "{found:?}");

    let found = problems("name = \"p\"\ntitle = \n");
    assert!(found[0].starts_with("2:"), "{found:?}");
}

/// The 1-based line of the `nth` occurrence of `needle`.
fn line_of(text: &str, needle: &str, nth: usize) -> usize {
    let at = text.match_indices(needle).nth(nth).map(|it| it.0).expect("needle in text");
    text[..at].matches('\n').count() + 1
}

fn has(found: &[String], line: usize, message: &str) {
    assert!(
        found.iter().any(|it| it.starts_with(&format!("{line}:")) && it.ends_with(message)),
        "no `{line}: … {message}` in {found:#?}"
    );
}

#[test]
fn recipe_cycles_and_unknown_names() {
    let text = format!(
        "{HEAD}{}{}{}{}[[recipe]]\nfield = \"a\"\nformula = \"b * 2\"\n[[recipe]]\nfield = \"b\"\nformula = \"a + c + ghost\"\n[[recipe]]\nfield = \"x\"\nformula = \"1\"\n[[recipe]]\nfield = \"c\"\nformula = \"2\"\n",
        field("a", "count", "derived"),
        field("b", "count", "derived"),
        field("c", "count", "web"),
        field("d", "money", "derived"),
    );
    let found = problems(&text);
    has(&found, line_of(&text, "field = \"a\"", 0), "recipes form a cycle: a -> b -> a");
    has(&found, line_of(&text, "a + c + ghost", 0), "recipe of `b` reads unknown field `ghost`");
    has(&found, line_of(&text, "field = \"x\"", 0), "recipe for unknown field `x`");
    has(&found, line_of(&text, "field = \"c\"", 0), "recipe for field `c`, whose source is `web`");
    has(&found, line_of(&text, "name = \"d\"", 0), "derived field `d` has no recipe");
    assert_eq!(found.len(), 5, "{found:#?}");
}

#[test]
fn components_must_be_declared_and_combined() {
    let text = format!(
        "{HEAD}{}requires_components = true\ncombine = \"a + b\"\n[[field.component]]\nname = \"a\"\ntype = \"money\"\nsource = \"derived\"\nlabel = \"A\"\nquestion = \"A?\"\n{}proactive = true\n",
        field("cost", "money", "web"),
        field("plain", "count", "user"),
    );
    let found = problems(&text);
    has(
        &found,
        line_of(&text, "a + b", 0),
        "combine of `cost` reads `b`, not one of its components",
    );
    has(
        &found,
        line_of(&text, "source = \"derived\"", 0),
        "component `a` of `cost` cannot be derived",
    );
    has(
        &found,
        line_of(&text, "name = \"plain\"", 0),
        "field `plain` is proactive but has no components",
    );
    assert_eq!(found.len(), 3, "{found:#?}");
}

#[test]
fn calculator_formulas_inputs_and_caps() {
    let text = format!(
        "{}{}{}[calculator]\nname = \"calc\"\ninputs = [\"rent\", \"ghost\"]\n[[calculator.output]]\nname = \"yearly\"\ntype = \"money\"\nformula = \"rent * 12 + later\"\n[[calculator.output]]\nname = \"later\"\ntype = \"money\"\nformula = \"rent *\"\n",
        HEAD.replace("max_iters = 5", "max_iters = 0"),
        field("rent", "money", "web"),
        field("region", "text", "user"),
    );
    let found = problems(&text);
    has(&found, line_of(&text, "[caps]", 0), "every cap must be at least 1");
    has(&found, line_of(&text, "name = \"region\"", 0), "field name `region` is reserved");
    has(&found, line_of(&text, "inputs", 0), "calculator input `ghost` is not a field");
    has(
        &found,
        line_of(&text, "rent * 12", 0),
        "output `yearly` reads `later`, neither a calculator input nor an earlier output",
    );
    has(&found, line_of(&text, "rent *\"", 0), "output `later`: unexpected end of formula");
    assert_eq!(found.len(), 5, "{found:#?}");
}

#[test]
fn errors_name_the_file_and_every_problem() {
    let text = format!("{HEAD}{}{}", field("a", "count", "web"), field("a", "count", "web"));
    let err = Profile::parse(&text, "shop.toml").unwrap_err().to_string();
    assert!(err.starts_with("shop.toml: 1 problem(s):\n  shop.toml:"), "{err}");
    assert!(err.ends_with("field `a` is declared twice"), "{err}");
    assert!(Profile::load(std::path::Path::new("/nonexistent/profile.toml")).is_err());
}

#[test]
fn hostile_text_is_a_located_problem_never_a_panic() {
    let text = format!(
        "{HEAD}{}[[recipe]]\nfield = \"d\"\nformula = \"\\u00e9\\u00e9 é + (((\"\n",
        field("d", "count", "derived"),
    );
    let found = problems(&text);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(found[0].ends_with("recipe of `d`: expected a number, a name or `(`"), "{found:#?}");
    for junk in ["\u{0}", "[[field]]\nname = 5", "name = \"é\"\n[caps]", "🦀 = 1"] {
        assert!(Profile::parse(junk, "junk.toml").is_err());
    }
}
