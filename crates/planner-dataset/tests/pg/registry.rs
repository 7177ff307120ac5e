//! The reference registry file loads, validates and names exactly the contracted intents.

use planner_registry::ParamKind;

use crate::fixture::registry;

#[test]
fn capture_toml_is_valid_and_complete() {
    let registry = registry();
    let described: Vec<String> = registry
        .intents()
        .iter()
        .map(|intent| {
            let params: Vec<String> = intent
                .params
                .iter()
                .map(|param| {
                    let name = &registry.param(param.param).name;
                    match &param.requirement {
                        planner_registry::Requirement::Required => name.clone(),
                        planner_registry::Requirement::Optional { default, range } => {
                            format!("{name} = {default} {range:?}")
                        }
                    }
                })
                .collect();
            let plane = intent
                .query()
                .map_or("composite".to_owned(), |query| registry.plane(query.plane).name.clone());
            format!("{} [{plane}] ({})", intent.name, params.join(", "))
        })
        .collect();
    insta::assert_snapshot!(described.join("\n"));
    let kinds: Vec<(String, ParamKind)> =
        registry.params().iter().map(|param| (param.name.clone(), param.kind)).collect();
    insta::assert_debug_snapshot!(kinds);
}
