//! Profiles: the fields an idea needs, how derived fields are computed, the calculator and the
//! caps, loaded from TOML and validated at load. Every problem is reported at once, each with
//! its line and column.

use std::{collections::BTreeMap, fmt, path::Path};

use serde::Deserialize;
use toml::Spanned;

use crate::{formula::Formula, value::Kind};

/// Where a field's value comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// Only the user knows it.
    User,
    /// Documents hold it.
    Web,
    /// Documents first, then the user.
    Either,
    /// Computed by a recipe from other fields.
    Derived,
}

impl Source {
    /// The name used in profiles.
    pub fn name(self) -> &'static str {
        match self {
            Source::User => "user",
            Source::Web => "web",
            Source::Either => "either",
            Source::Derived => "derived",
        }
    }
}

/// A validated profile, immutable once loaded.
#[derive(Debug, Clone, PartialEq)]
pub struct Profile {
    /// The profile's name (`coffee_shop`).
    pub name: String,
    /// A short title.
    pub title: String,
    /// The fields, in priority order.
    pub fields: Vec<FieldSpec>,
    /// Formulas of the derived fields.
    pub recipes: Vec<Recipe>,
    /// The calculator, if the profile has one.
    pub calculator: Option<Calculator>,
    /// The caps of a run.
    pub caps: Caps,
}

/// One field of the schema.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldSpec {
    /// Its name, unique in the profile.
    pub name: String,
    /// Its type.
    pub kind: Kind,
    /// Where its value comes from.
    pub source: Source,
    /// A human label, also the base of search queries.
    pub label: String,
    /// The question asked to the user.
    pub question: String,
    /// The components it is decomposed into before it is searched or asked.
    pub components: Option<Decomposition>,
    /// Whether it is decomposed as soon as region and currency are known.
    pub proactive: bool,
}

/// How a field that `requires_components` is decomposed.
#[derive(Debug, Clone, PartialEq)]
pub struct Decomposition {
    /// The components, in acquisition order.
    pub components: Vec<ComponentSpec>,
    /// The formula over component names giving the field's value.
    pub combine: Formula,
}

/// One component of a decomposed field.
#[derive(Debug, Clone, PartialEq)]
pub struct ComponentSpec {
    /// Its name, unique within its field.
    pub name: String,
    /// Its type.
    pub kind: Kind,
    /// Where its value comes from (never derived).
    pub source: Source,
    /// A human label.
    pub label: String,
    /// The question asked to the user.
    pub question: String,
}

/// The formula of a derived field.
#[derive(Debug, Clone, PartialEq)]
pub struct Recipe {
    /// The derived field.
    pub field: String,
    /// Its formula over other fields.
    pub formula: Formula,
}

/// A named set of formulas run once its required inputs are known.
///
/// A run is `blocked` while any required input is missing (the errors name them), an `error`
/// when a formula fails (division by zero, mixed currencies), and a `success` otherwise.
#[derive(Debug, Clone, PartialEq)]
pub struct Calculator {
    /// Its name.
    pub name: String,
    /// The fields it needs.
    pub inputs: Vec<String>,
    /// Its outputs, evaluated in order; each may read the inputs and earlier outputs.
    pub outputs: Vec<Output>,
}

/// One calculator output.
#[derive(Debug, Clone, PartialEq)]
pub struct Output {
    /// Its name.
    pub name: String,
    /// Its type.
    pub kind: Kind,
    /// Its formula.
    pub formula: Formula,
}

/// The caps of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct Caps {
    /// Most planning iterations (passes through `check_termination`).
    pub max_iters: u32,
    /// Most searches, and most questions, per field or component.
    pub max_attempts_per_field: u32,
    /// Most calculator runs ending blocked or in error before the run aborts.
    pub max_calculation_attempts: u32,
}

/// The names reserved for the prerequisites every run asks first.
pub const REGION: &str = "region";
/// See [`REGION`].
pub const CURRENCY: &str = "currency";

/// One problem of a profile, located.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

/// Why a profile did not load.
#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    /// The file could not be read.
    #[error("reading {path}: {source}")]
    Read {
        /// The file.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
    /// The profile is invalid.
    #[error("{origin}: {} problem(s):\n{}", problems.len(), list(origin, problems))]
    Invalid {
        /// The file (or `<text>`).
        origin: String,
        /// Every problem, sorted by position.
        problems: Vec<Problem>,
    },
}

fn list(origin: &str, problems: &[Problem]) -> String {
    problems
        .iter()
        .map(|p| format!("  {origin}:{}:{}: {}", p.line, p.column, p.message))
        .collect::<Vec<_>>()
        .join("\n")
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.column, self.message)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawProfile {
    name: Spanned<String>,
    title: String,
    caps: Spanned<Caps>,
    #[serde(default)]
    field: Vec<RawField>,
    #[serde(default)]
    recipe: Vec<RawRecipe>,
    calculator: Option<RawCalculator>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawField {
    name: Spanned<String>,
    #[serde(rename = "type")]
    kind: Kind,
    source: Source,
    label: Spanned<String>,
    question: Spanned<String>,
    #[serde(default)]
    requires_components: bool,
    #[serde(default)]
    proactive: bool,
    combine: Option<Spanned<String>>,
    #[serde(default)]
    component: Vec<RawComponent>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawComponent {
    name: Spanned<String>,
    #[serde(rename = "type")]
    kind: Kind,
    source: Spanned<Source>,
    label: Spanned<String>,
    question: Spanned<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRecipe {
    field: Spanned<String>,
    formula: Spanned<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCalculator {
    name: Spanned<String>,
    inputs: Vec<Spanned<String>>,
    output: Vec<RawOutput>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawOutput {
    name: Spanned<String>,
    #[serde(rename = "type")]
    kind: Kind,
    formula: Spanned<String>,
}

/// Collects problems with their positions in the source text.
struct Problems<'t> {
    text: &'t str,
    list: Vec<(usize, Problem)>,
}

impl Problems<'_> {
    fn at(&mut self, offset: usize, message: impl Into<String>) {
        // Offsets inside formulas count the decoded string; never cut a character in two.
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let before = &self.text[..offset];
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |it| it.chars().count()) + 1;
        self.list.push((offset, Problem { line, column, message: message.into() }));
    }

    fn formula(&mut self, text: &Spanned<String>, what: &str) -> Option<Formula> {
        match Formula::parse(text.get_ref()) {
            Ok(formula) => Some(formula),
            Err(err) => {
                // The formula starts after the opening quote.
                self.at(text.span().start + 1 + err.offset, format!("{what}: {}", err.message));
                None
            }
        }
    }
}

fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

impl Profile {
    /// Loads and validates the profile at `path`.
    ///
    /// # Errors
    /// The file cannot be read, or every problem of the profile, located.
    pub fn load(path: &Path) -> Result<Profile, ProfileError> {
        let text = std::fs::read_to_string(path)
            .map_err(|source| ProfileError::Read { path: path.display().to_string(), source })?;
        Profile::parse(&text, &path.display().to_string())
    }

    /// Parses and validates a profile; `origin` names it in errors.
    ///
    /// # Errors
    /// Every problem of the profile, located.
    pub fn parse(text: &str, origin: &str) -> Result<Profile, ProfileError> {
        let invalid = |problems| ProfileError::Invalid { origin: origin.to_owned(), problems };
        let mut problems = Problems { text, list: Vec::new() };
        let raw: RawProfile = match toml::from_str(text) {
            Ok(raw) => raw,
            Err(err) => {
                let offset = err.span().map_or(0, |it| it.start);
                problems.at(offset, err.message().trim_end().to_owned());
                return Err(invalid(finish(problems)));
            }
        };
        let profile = validate(raw, &mut problems);
        if problems.list.is_empty() { Ok(profile) } else { Err(invalid(finish(problems))) }
    }

    /// The field named `name`.
    pub fn field(&self, name: &str) -> Option<&FieldSpec> {
        self.fields.iter().find(|it| it.name == name)
    }

    /// The recipe of field `name`, from the profile (not dynamic decompositions).
    pub fn recipe(&self, name: &str) -> Option<&Recipe> {
        self.recipes.iter().find(|it| it.field == name)
    }

    /// The field names, in priority order.
    pub fn field_names(&self) -> Vec<&str> {
        self.fields.iter().map(|it| it.name.as_str()).collect()
    }
}

fn finish(problems: Problems<'_>) -> Vec<Problem> {
    let mut list = problems.list;
    list.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.message.cmp(&b.1.message)));
    list.into_iter().map(|it| it.1).collect()
}

fn check_name(problems: &mut Problems<'_>, name: &Spanned<String>, what: &str) {
    if !is_identifier(name.get_ref()) {
        problems.at(
            name.span().start,
            format!("{what} `{}` is not a name (lowercase letters, digits, `_`)", name.get_ref()),
        );
    }
}

fn check_text(problems: &mut Problems<'_>, text: &Spanned<String>, what: &str) {
    if text.get_ref().trim().is_empty() {
        problems.at(text.span().start, format!("{what} is empty"));
    }
}

#[expect(clippy::too_many_lines, reason = "one pass over the profile, check by check")]
fn validate(raw: RawProfile, problems: &mut Problems<'_>) -> Profile {
    check_name(problems, &raw.name, "profile name");
    let caps = *raw.caps.get_ref();
    if caps.max_iters == 0 || caps.max_attempts_per_field == 0 || caps.max_calculation_attempts == 0
    {
        problems.at(raw.caps.span().start, "every cap must be at least 1");
    }

    // Fields.
    let mut kinds: BTreeMap<String, Kind> = BTreeMap::new();
    let mut fields = Vec::new();
    for field in &raw.field {
        let name = field.name.get_ref();
        check_name(problems, &field.name, "field name");
        if name == REGION || name == CURRENCY {
            problems.at(field.name.span().start, format!("field name `{name}` is reserved"));
        }
        if kinds.insert(name.clone(), field.kind).is_some() {
            problems.at(field.name.span().start, format!("field `{name}` is declared twice"));
        }
        check_text(problems, &field.label, &format!("label of field `{name}`"));
        check_text(problems, &field.question, &format!("question of field `{name}`"));
        let components = if field.requires_components {
            decomposition(field, problems)
        } else {
            if let Some(combine) = &field.combine {
                problems.at(
                    combine.span().start,
                    format!("field `{name}` has `combine` but not `requires_components = true`"),
                );
            }
            if let Some(first) = field.component.first() {
                problems.at(
                    first.name.span().start,
                    format!("field `{name}` has components but not `requires_components = true`"),
                );
            }
            if field.proactive {
                problems.at(
                    field.name.span().start,
                    format!("field `{name}` is proactive but has no components"),
                );
            }
            None
        };
        if field.requires_components && field.source == Source::Derived {
            problems.at(
                field.name.span().start,
                format!("field `{name}` is derived and cannot also require components"),
            );
        }
        fields.push(FieldSpec {
            name: name.clone(),
            kind: field.kind,
            source: field.source,
            label: field.label.get_ref().trim().to_owned(),
            question: field.question.get_ref().trim().to_owned(),
            components,
            proactive: field.proactive,
        });
    }

    // Recipes: one per derived field, over known numeric fields, without cycles.
    let mut recipes = Vec::new();
    let mut recipe_spans: BTreeMap<String, usize> = BTreeMap::new();
    for recipe in &raw.recipe {
        let target = recipe.field.get_ref();
        let start = recipe.field.span().start;
        match raw.field.iter().find(|it| it.name.get_ref() == target) {
            None => problems.at(start, format!("recipe for unknown field `{target}`")),
            Some(field) if field.source != Source::Derived => problems.at(
                start,
                format!("recipe for field `{target}`, whose source is `{}`", field.source.name()),
            ),
            Some(_) => {}
        }
        if recipe_spans.insert(target.clone(), start).is_some() {
            problems.at(start, format!("field `{target}` has two recipes"));
        }
        let Some(formula) = problems.formula(&recipe.formula, &format!("recipe of `{target}`"))
        else {
            continue;
        };
        for name in formula.names() {
            match kinds.get(name) {
                None => problems.at(
                    recipe.formula.span().start,
                    format!("recipe of `{target}` reads unknown field `{name}`"),
                ),
                Some(Kind::Text) => problems.at(
                    recipe.formula.span().start,
                    format!("recipe of `{target}` reads text field `{name}`"),
                ),
                Some(_) => {}
            }
        }
        recipes.push(Recipe { field: target.clone(), formula });
    }
    for field in &raw.field {
        if field.source == Source::Derived && !recipe_spans.contains_key(field.name.get_ref()) {
            problems.at(
                field.name.span().start,
                format!("derived field `{}` has no recipe", field.name.get_ref()),
            );
        }
    }
    if let Some(cycle) = recipe_cycle(&recipes) {
        let start = recipe_spans.get(&cycle[0]).copied().unwrap_or(0);
        problems.at(start, format!("recipes form a cycle: {}", cycle.join(" -> ")));
    }

    // Calculator.
    let calculator = raw.calculator.as_ref().map(|calc| {
        check_name(problems, &calc.name, "calculator name");
        let mut inputs: Vec<String> = Vec::new();
        for input in &calc.inputs {
            let name = input.get_ref();
            if !kinds.contains_key(name) {
                problems
                    .at(input.span().start, format!("calculator input `{name}` is not a field"));
            }
            if inputs.contains(name) {
                problems
                    .at(input.span().start, format!("calculator input `{name}` is listed twice"));
            }
            inputs.push(name.clone());
        }
        if calc.output.is_empty() {
            problems.at(calc.name.span().start, "calculator has no output");
        }
        let mut outputs: Vec<Output> = Vec::new();
        for output in &calc.output {
            let name = output.name.get_ref();
            check_name(problems, &output.name, "calculator output");
            if kinds.contains_key(name) || outputs.iter().any(|it| &it.name == name) {
                problems.at(output.name.span().start, format!("output `{name}` is already a name"));
            }
            if let Some(formula) = problems.formula(&output.formula, &format!("output `{name}`")) {
                for read in formula.names() {
                    let known = inputs.iter().any(|it| it == read)
                        || outputs.iter().any(|it| it.name == read);
                    if !known {
                        problems.at(
                            output.formula.span().start,
                            format!(
                                "output `{name}` reads `{read}`, neither a calculator input nor \
                                 an earlier output"
                            ),
                        );
                    }
                }
                outputs.push(Output { name: name.clone(), kind: output.kind, formula });
            }
        }
        Calculator { name: calc.name.get_ref().clone(), inputs, outputs }
    });

    Profile { name: raw.name.into_inner(), title: raw.title, fields, recipes, calculator, caps }
}

fn decomposition(field: &RawField, problems: &mut Problems<'_>) -> Option<Decomposition> {
    let name = field.name.get_ref();
    if field.component.is_empty() {
        problems.at(
            field.name.span().start,
            format!("field `{name}` requires components but lists none"),
        );
    }
    let mut components: Vec<ComponentSpec> = Vec::new();
    for component in &field.component {
        let cname = component.name.get_ref();
        check_name(problems, &component.name, "component name");
        if components.iter().any(|it| &it.name == cname) {
            problems.at(
                component.name.span().start,
                format!("component `{cname}` of `{name}` is declared twice"),
            );
        }
        if *component.source.get_ref() == Source::Derived {
            problems.at(
                component.source.span().start,
                format!("component `{cname}` of `{name}` cannot be derived"),
            );
        }
        check_text(problems, &component.label, &format!("label of component `{cname}`"));
        check_text(problems, &component.question, &format!("question of component `{cname}`"));
        components.push(ComponentSpec {
            name: cname.clone(),
            kind: component.kind,
            source: *component.source.get_ref(),
            label: component.label.get_ref().trim().to_owned(),
            question: component.question.get_ref().trim().to_owned(),
        });
    }
    let Some(combine) = &field.combine else {
        problems.at(
            field.name.span().start,
            format!("field `{name}` requires components but has no `combine`"),
        );
        return None;
    };
    let formula = problems.formula(combine, &format!("combine of `{name}`"))?;
    for read in formula.names() {
        if !components.iter().any(|it| it.name == read) {
            problems.at(
                combine.span().start,
                format!("combine of `{name}` reads `{read}`, not one of its components"),
            );
        }
    }
    Some(Decomposition { components, combine: formula })
}

/// The first cycle among recipes, as the path of field names that closes it.
fn recipe_cycle(recipes: &[Recipe]) -> Option<Vec<String>> {
    fn visit<'r>(
        field: &'r str,
        recipes: &'r [Recipe],
        path: &mut Vec<&'r str>,
        done: &mut Vec<&'r str>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|it| *it == field) {
            let mut cycle: Vec<String> = path[at..].iter().map(|it| (*it).to_owned()).collect();
            cycle.push(field.to_owned());
            return Some(cycle);
        }
        if done.contains(&field) {
            return None;
        }
        path.push(field);
        if let Some(recipe) = recipes.iter().find(|it| it.field == field) {
            for input in recipe.formula.names() {
                if let Some(cycle) = visit(input, recipes, path, done) {
                    return Some(cycle);
                }
            }
        }
        path.pop();
        done.push(field);
        None
    }
    let mut done = Vec::new();
    recipes.iter().find_map(|it| visit(&it.field, recipes, &mut Vec::new(), &mut done))
}
