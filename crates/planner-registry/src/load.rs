//! Loading: the file text parsed, every rule checked, every problem collected, then frozen.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use toml::Spanned;
use toml::de::{DeTable, DeValue, ValueDeserializer};

use crate::error::{Error, Problem, Result};
use crate::file::{RawFile, RawIntent};
use crate::guard;
use crate::kinds::{self, Files, KindBody, KindSpec};
use crate::model::{
    AsOf, Column, ColumnType, Composite, CompositeEdge, Inner, Intent, IntentBody, IntentId,
    IntentParam, Param, ParamId, ParamsByKind, Plane, PlaneId, QueryIntent, Registry, Requirement,
    Role, Settings, Suppression, Unit, WindowDirection,
};
use crate::value::{KindType, ParamKind, Value, ValueShape};

/// The most intents a registry may declare.
const MAX_INTENTS: usize = 100_000;
/// The most nodes a plan may ever have, whatever the file says.
const MAX_NODE_CAP: i64 = 64;
/// The longest name of an intent, param, plane, scope or column.
const MAX_NAME_LEN: usize = 64;
/// The longest example question (the longest question a server accepts is longer, but an
/// example is one ask as users type it).
const MAX_EXAMPLE_BYTES: usize = 500;

impl Registry {
    /// Parses and validates a registry file. `origin` names the file in problems (a path or
    /// any label). Every problem found is reported at once in [`Error::Invalid`].
    pub fn from_toml(text: &str, origin: &str) -> Result<Registry> {
        Registry::from_toml_with(text, origin, &|name: &str| {
            Err(format!("`{name}`: this registry was given as text, without the files beside it"))
        })
    }

    /// [`Registry::from_toml`] for a file that names files beside it (a kind's `csv`): `files`
    /// reads one by the name written in the file, or says why it cannot. This crate does no I/O
    /// of its own.
    pub fn from_toml_with(text: &str, origin: &str, files: Files<'_>) -> Result<Registry> {
        let lines = LineIndex::new(text);
        let mut report = Report { lines: &lines, problems: Vec::new() };
        let Some(raw) = parse(text, &mut report) else {
            return Err(report.into_error(origin));
        };
        let inner = validate(&raw, files, &mut report);
        match inner {
            Some(inner) if report.problems.is_empty() => Ok(Registry::from_inner(inner)),
            _ => Err(report.into_error(origin)),
        }
    }
}

/// Parses the file into its sections, each `[[intent]]` on its own, so that every syntax error
/// and every malformed section is reported, not just the first.
fn parse(text: &str, report: &mut Report<'_>) -> Option<RawFile> {
    let (table, errors) = DeTable::parse_recoverable(text);
    if !errors.is_empty() {
        for err in errors {
            report.toml_error(&err, 0..0);
        }
        return None;
    }
    let mut registry = None;
    let mut planes = None;
    let mut params = None;
    let mut kinds = Some(BTreeMap::new());
    let mut intent = Vec::new();
    let mut ok = true;
    let mut seen = [false; 3];
    for (key, value) in table.into_inner() {
        let key_span = key.span();
        if let Some(at) = ["registry", "planes", "params"].iter().position(|k| *k == key.get_ref())
        {
            seen[at] = true;
        }
        match key.get_ref().as_ref() {
            "registry" => {
                registry = section(value, report);
                ok &= registry.is_some();
            }
            "planes" => {
                planes = section(value, report);
                ok &= planes.is_some();
            }
            "params" => {
                params = section(value, report);
                ok &= params.is_some();
            }
            "kinds" => {
                kinds = section(value, report);
                ok &= kinds.is_some();
            }
            "intent" => {
                let span = value.span();
                match value.into_inner() {
                    DeValue::Array(items) => {
                        for item in items {
                            match section(item, report) {
                                Some(parsed) => intent.push(parsed),
                                None => ok = false,
                            }
                        }
                    }
                    _ => {
                        report.at(&span, "`intent` must be an array of tables: write [[intent]]");
                        ok = false;
                    }
                }
            }
            other => {
                report.at(
                    &key_span,
                    format!(
                        "unknown section `{other}`: expected registry, planes, kinds, params or intent"
                    ),
                );
                ok = false;
            }
        }
    }
    for (present, name) in [(&seen[0], "registry"), (&seen[1], "planes"), (&seen[2], "params")] {
        if !present {
            report.at(&(0..0), format!("missing section [{name}]"));
            ok = false;
        }
    }
    Some(RawFile { registry: registry?, planes: planes?, params: params?, kinds: kinds?, intent })
        .filter(|_| ok)
}

/// Deserializes one section, reporting its error.
fn section<T: serde::de::DeserializeOwned>(
    value: Spanned<DeValue<'_>>,
    report: &mut Report<'_>,
) -> Option<T> {
    let span = value.span();
    match T::deserialize(ValueDeserializer::from(value)) {
        Ok(parsed) => Some(parsed),
        Err(err) => {
            report.toml_error(&err, span);
            None
        }
    }
}

/// Byte offsets to 1-based line and character column.
struct LineIndex<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    fn new(text: &'a str) -> LineIndex<'a> {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(at, _)| at + 1));
        LineIndex { text, starts }
    }

    fn locate(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let line = self.starts.partition_point(|&start| start <= offset).saturating_sub(1);
        let start = self.starts[line];
        let column = self.text.get(start..offset).map_or(offset - start, |s| s.chars().count());
        (line + 1, column + 1)
    }
}

struct Report<'a> {
    lines: &'a LineIndex<'a>,
    problems: Vec<Problem>,
}

impl Report<'_> {
    fn at(&mut self, span: &Range<usize>, message: impl Into<String>) {
        let (line, column) = self.lines.locate(span.start);
        self.problems.push(Problem {
            line: Some(line),
            column: Some(column),
            message: message.into(),
        });
    }

    fn toml_error(&mut self, err: &toml::de::Error, fallback: Range<usize>) {
        let mut message = err.message().trim_end_matches('.').to_owned();
        // A double-quoted string reads `\` as an escape: the one place this format writes a
        // backslash is a code shape's literal, which single quotes keep as written.
        if message.contains("escape") {
            message.push_str(
                " (a code shape's `\\` before a literal character is written in single quotes: \
                 shape = '\\AC-99999', a literal A)",
            );
        }
        self.at(&err.span().unwrap_or(fallback), message);
    }

    fn at_line_col(&mut self, line: usize, column: usize, message: impl Into<String>) {
        self.problems.push(Problem {
            line: Some(line),
            column: Some(column),
            message: message.into(),
        });
    }

    fn into_error(mut self, origin: &str) -> Error {
        self.problems.sort();
        self.problems.dedup();
        Error::Invalid { origin: origin.to_owned(), problems: self.problems }
    }
}

/// A name of an intent, param, plane, scope, schema or column: `[a-z][a-z0-9_]*`, at most 64
/// bytes.
fn is_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    name.len() <= MAX_NAME_LEN
        && bytes.next().is_some_and(|b| b.is_ascii_lowercase())
        && bytes.all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

fn check_name(report: &mut Report<'_>, what: &str, name: &Spanned<String>) -> bool {
    if is_name(name.get_ref()) {
        true
    } else {
        report.at(
            &name.span(),
            format!(
                "malformed {what} name `{}`: expected [a-z][a-z0-9_]*, at most {MAX_NAME_LEN} bytes",
                name.get_ref()
            ),
        );
        false
    }
}

fn validate(raw: &RawFile, files: Files<'_>, report: &mut Report<'_>) -> Option<Inner> {
    let settings = validate_settings(raw, report)?;
    let planes = validate_planes(raw, &settings, report);
    let mut found = Vec::new();
    let has_as_of = raw.registry.get_ref().as_of.is_some();
    let kinds = kinds::validate(&raw.kinds, files, has_as_of, &mut found);
    for (span, message) in found {
        report.at(&span, message);
    }
    let (params, param_by_kind) = validate_params(raw, &kinds, report);
    let help = raw.registry.get_ref().help.as_ref().map(|h| h.get_ref().trim().to_owned());
    let plane_ids: BTreeMap<&str, PlaneId> = planes
        .iter()
        .enumerate()
        .filter_map(|(i, p)| Some((p.name.as_str(), PlaneId(u16::try_from(i).ok()?))))
        .collect();
    let param_ids: BTreeMap<&str, ParamId> = params
        .iter()
        .enumerate()
        .filter_map(|(i, p)| Some((p.name.as_str(), ParamId(u16::try_from(i).ok()?))))
        .collect();

    if raw.intent.len() > MAX_INTENTS {
        report.at(&raw.intent[MAX_INTENTS].span(), format!("more than {MAX_INTENTS} intents"));
        return None;
    }
    // First pass: names to ids, so composites may name intents declared after them.
    let mut by_name: BTreeMap<String, IntentId> = BTreeMap::new();
    for (index, intent) in raw.intent.iter().enumerate() {
        let name = &intent.get_ref().name;
        check_name(report, "intent", name);
        let id = IntentId(u32::try_from(index).ok()?);
        if by_name.contains_key(name.get_ref()) {
            report.at(&name.span(), format!("duplicate intent name `{}`", name.get_ref()));
        } else {
            by_name.insert(name.get_ref().clone(), id);
        }
    }

    let ctx = Ctx {
        settings: &settings,
        planes: &planes,
        params: &params,
        plane_ids,
        param_ids,
        by_name: &by_name,
        raw,
    };
    let mut intents = Vec::with_capacity(raw.intent.len());
    for (index, intent) in raw.intent.iter().enumerate() {
        let id = IntentId(u32::try_from(index).ok()?);
        intents.push(ctx.intent(id, intent, report));
    }
    check_composite_params(&mut intents, raw, report);
    check_composite_cycles(&intents, raw, report);

    let mut providers = vec![Vec::new(); params.len()];
    for intent in &intents {
        for column in intent.columns() {
            if let Some(param) = column.provides
                && let Some(list) = providers.get_mut(param.index())
                && list.last() != Some(&intent.id)
            {
                list.push(intent.id);
            }
        }
    }
    let as_of = ctx.as_of(report);
    Some(Inner {
        settings,
        planes,
        params,
        intents,
        by_name,
        param_by_kind,
        kinds,
        help,
        as_of,
        providers,
    })
}

fn validate_settings(raw: &RawFile, report: &mut Report<'_>) -> Option<Settings> {
    let settings = raw.registry.get_ref();
    let mut ok = true;
    let node_cap = *settings.node_cap.get_ref();
    if !(1..=MAX_NODE_CAP).contains(&node_cap) {
        report.at(
            &settings.node_cap.span(),
            format!("node_cap must be from 1 to {MAX_NODE_CAP}, found {node_cap}"),
        );
        ok = false;
    }
    let mut fan_out = crate::model::DEFAULT_FAN_OUT;
    if let Some(raw) = &settings.fan_out {
        let max = crate::model::MAX_FAN_OUT;
        match usize::try_from(*raw.get_ref()) {
            Ok(n) if (1..=max).contains(&n) => fan_out = n,
            _ => {
                report.at(
                    &raw.span(),
                    format!(
                        "fan_out must be from 1 to {max} (1 runs a dependant only on a single \
                         upstream value), found {}",
                        raw.get_ref()
                    ),
                );
                ok = false;
            }
        }
    }
    let default_k = *settings.default_k.get_ref();
    if !(2..=1_000_000).contains(&default_k) {
        report.at(
            &settings.default_k.span(),
            format!("default_k must be from 2 to 1000000, found {default_k}"),
        );
        ok = false;
    }
    let mut allowed_schemas = Vec::new();
    for schema in &settings.allowed_schemas {
        if !check_name(report, "schema", schema) {
            continue;
        }
        if guard::is_forbidden_schema(schema.get_ref()) {
            report
                .at(&schema.span(), format!("schema `{}` can never be allowed", schema.get_ref()));
        } else if allowed_schemas.contains(schema.get_ref()) {
            report.at(&schema.span(), format!("duplicate schema `{}`", schema.get_ref()));
        } else {
            allowed_schemas.push(schema.get_ref().clone());
        }
    }
    if settings.allowed_schemas.is_empty() {
        report.at(&raw.registry.span(), "allowed_schemas must name at least one schema");
    }
    let mut scopes = Vec::new();
    for scope in &settings.scopes {
        if !check_name(report, "scope", scope) {
            continue;
        }
        if scopes.contains(scope.get_ref()) {
            report.at(&scope.span(), format!("duplicate scope `{}`", scope.get_ref()));
        } else {
            scopes.push(scope.get_ref().clone());
        }
    }
    ok.then(|| Settings {
        node_cap: usize::try_from(node_cap).unwrap_or(1),
        fan_out,
        default_k: u32::try_from(default_k).unwrap_or(2),
        allowed_schemas,
        scopes,
    })
}

fn validate_planes(raw: &RawFile, settings: &Settings, report: &mut Report<'_>) -> Vec<Plane> {
    let mut planes = Vec::new();
    for (name, plane) in &raw.planes {
        check_name(report, "plane", name);
        let plane_ref = plane.get_ref();
        if let Some(scope) = &plane_ref.scope
            && !settings.scopes.contains(scope.get_ref())
        {
            report.at(
                &scope.span(),
                format!("unknown scope `{}`: declare it in registry.scopes", scope.get_ref()),
            );
        }
        let mut schemas = Vec::new();
        match &plane_ref.schemas {
            None => report.at(
                &plane.span(),
                format!(
                    "plane `{}` needs `schemas`: the schemas its intents may read (from \
                     registry.allowed_schemas)",
                    name.get_ref()
                ),
            ),
            Some(list) if list.get_ref().is_empty() => report.at(
                &list.span(),
                format!("plane `{}` must name at least one schema", name.get_ref()),
            ),
            Some(list) => {
                for schema in list.get_ref() {
                    let lower = schema.get_ref().to_ascii_lowercase();
                    if !settings.allowed_schemas.contains(&lower) {
                        report.at(
                            &schema.span(),
                            format!(
                                "plane `{}` names schema `{}`, which is not in \
                                 registry.allowed_schemas",
                                name.get_ref(),
                                schema.get_ref()
                            ),
                        );
                    } else if !schemas.contains(&lower) {
                        schemas.push(lower);
                    }
                }
            }
        }
        let mut people = Vec::new();
        for noun in &plane_ref.people {
            let words = crate::kinds::alias_words(noun.get_ref());
            if words.is_empty() {
                report.at(
                    &noun.span(),
                    format!("plane `{}`: a people noun has no word", name.get_ref()),
                );
            } else {
                people.push(words.join(" "));
            }
        }
        planes.push(Plane {
            name: name.get_ref().clone(),
            tenant: plane_ref.tenant,
            counts: plane_ref.counts,
            workforce: plane_ref.workforce,
            scope: plane_ref.scope.as_ref().map(|s| s.get_ref().clone()),
            schemas,
            people,
        });
    }
    planes
}

fn validate_params(
    raw: &RawFile,
    kinds: &[KindSpec],
    report: &mut Report<'_>,
) -> (Vec<Param>, ParamsByKind) {
    let mut params = Vec::new();
    let mut by_kind = BTreeMap::new();
    for (name, param) in &raw.params {
        check_name(report, "param", name);
        let param_ref = param.get_ref();
        let declared = kinds.iter().find(|k| k.kind.as_str() == param_ref.kind.get_ref());
        let Some(kind) =
            declared.map(|k| k.kind).or_else(|| param_ref.kind.get_ref().parse::<ParamKind>().ok())
        else {
            let known: Vec<&str> = ParamKind::BUILTIN
                .iter()
                .map(|k| k.as_str())
                .chain(kinds.iter().map(|k| k.kind.as_str()))
                .collect();
            report.at(
                &param_ref.kind.span(),
                format!(
                    "unknown kind `{}` for param `{}`: expected one of {}",
                    param_ref.kind.get_ref(),
                    name.get_ref(),
                    known.join(", ")
                ),
            );
            continue;
        };
        // A built-in enum kind lists its values on the param, unless the registry declares it
        // (its values are then the declaration's).
        let is_enum =
            matches!(kind, ParamKind::Clearance | ParamKind::Compartments) && declared.is_none();
        let mut values: Vec<String> = match declared.map(|k| &k.body) {
            Some(KindBody::Dictionary { entries, .. } | KindBody::List { entries, .. }) => {
                entries.iter().map(|e| e.value.clone()).collect()
            }
            _ => Vec::new(),
        };
        if is_enum && param_ref.values.is_empty() {
            report.at(
                &param.span(),
                format!("param `{}` of kind {kind} needs its allowed `values`", name.get_ref()),
            );
        }
        if !is_enum && !param_ref.values.is_empty() {
            report.at(
                &param.span(),
                format!("param `{}` of kind {kind} takes no `values`", name.get_ref()),
            );
        }
        for value in &param_ref.values {
            let text = value.get_ref();
            if text.is_empty() || text.trim() != text {
                report.at(
                    &value.span(),
                    format!("malformed value `{text}` of param `{}`", name.get_ref()),
                );
            } else if values.contains(text) {
                report.at(
                    &value.span(),
                    format!("duplicate value `{text}` of param `{}`", name.get_ref()),
                );
            } else {
                values.push(text.clone());
            }
        }
        let Ok(id) = u16::try_from(params.len()).map(ParamId) else {
            report.at(&param.span(), "too many params");
            continue;
        };
        let role = param_role(name.get_ref(), kind, param_ref.role.as_ref(), report);
        match by_kind.entry((kind, role)) {
            std::collections::btree_map::Entry::Vacant(entry) => {
                entry.insert(id);
            }
            std::collections::btree_map::Entry::Occupied(_) => match role {
                None => report.at(
                    &param_ref.kind.span(),
                    format!(
                        "kind {kind} is already declared by another param: each kind has at \
                         most one param (two params of one kind need different roles, \
                         `role = \"from\"` and `role = \"to\"`)"
                    ),
                ),
                Some(role) => report.at(
                    &param_ref.role.as_ref().map_or(param_ref.kind.span(), Spanned::span),
                    format!(
                        "kind {kind} with role {role} is already declared by another param: \
                         each kind has at most one param per role"
                    ),
                ),
            },
        }
        params.push(Param { name: name.get_ref().clone(), kind, values, role });
    }
    (params, by_kind)
}

/// A param's `role`: one of the closed set, on a kind whose values a question can tell apart
/// by the words around them ([`Role::suits`]).
fn param_role(
    name: &str,
    kind: ParamKind,
    raw: Option<&Spanned<String>>,
    report: &mut Report<'_>,
) -> Option<Role> {
    let raw = raw?;
    let Some(role) = Role::from_name(raw.get_ref()) else {
        let allowed: Vec<&str> = Role::ALL.iter().map(|r| r.as_str()).collect();
        report.at(
            &raw.span(),
            format!(
                "unknown role `{}` for param `{name}`: expected one of {} (the source and the \
                 goal end of a directed pair)",
                raw.get_ref(),
                allowed.join(", ")
            ),
        );
        return None;
    };
    if !Role::suits(kind) {
        report.at(
            &raw.span(),
            format!(
                "param `{name}` of kind {kind} cannot take a role: only a dictionary, code or \
                 quoted-text kind names a thing that can be one end of a pair (a number, a \
                 length, a date, a range, a list or a uuid cannot be told apart by \
                 \"from\" and \"to\")"
            ),
        );
        return None;
    }
    Some(role)
}

struct Ctx<'a> {
    settings: &'a Settings,
    planes: &'a [Plane],
    params: &'a [Param],
    plane_ids: BTreeMap<&'a str, PlaneId>,
    param_ids: BTreeMap<&'a str, ParamId>,
    by_name: &'a BTreeMap<String, IntentId>,
    raw: &'a RawFile,
}

impl Ctx<'_> {
    /// `[registry] as_of`: a known plane that does not count, and SQL the guard accepts there.
    fn as_of(&self, report: &mut Report<'_>) -> Option<AsOf> {
        let raw = self.raw.registry.get_ref().as_of.as_ref()?.get_ref();
        let Some(&plane) = self.plane_ids.get(raw.plane.get_ref().as_str()) else {
            report.at(
                &raw.plane.span(),
                format!("registry.as_of names unknown plane `{}`", raw.plane.get_ref()),
            );
            return None;
        };
        if self.planes[plane.index()].counts {
            report.at(
                &raw.plane.span(),
                format!(
                    "registry.as_of may not run on the counting plane `{}`",
                    raw.plane.get_ref()
                ),
            );
            return None;
        }
        self.guard("registry.as_of", &raw.sql, &self.planes[plane.index()].schemas, &[], report);
        Some(AsOf { plane, sql: raw.sql.get_ref().clone() })
    }

    fn intent(
        &self,
        id: IntentId,
        spanned: &Spanned<RawIntent>,
        report: &mut Report<'_>,
    ) -> Intent {
        let raw = spanned.get_ref();
        let name = raw.name.get_ref();
        if raw.description.get_ref().trim().is_empty() {
            report.at(&raw.description.span(), format!("intent `{name}` has an empty description"));
        }
        let mut keywords = Vec::new();
        for keyword in &raw.keywords {
            if keyword.get_ref().trim().is_empty() {
                report.at(&keyword.span(), format!("intent `{name}` has an empty keyword"));
            } else {
                keywords.push(keyword.get_ref().clone());
            }
        }
        let mut examples: Vec<String> = Vec::new();
        for example in &raw.examples {
            let text = example.get_ref().trim();
            if text.is_empty() {
                report.at(&example.span(), format!("intent `{name}` has an empty example"));
            } else if text.len() > MAX_EXAMPLE_BYTES {
                report.at(
                    &example.span(),
                    format!(
                        "an example of intent `{name}` is {} bytes long; an example is one \
                         question, at most {MAX_EXAMPLE_BYTES} bytes",
                        text.len()
                    ),
                );
            } else if examples.iter().any(|seen| seen == text) {
                report.at(&example.span(), format!("intent `{name}` repeats the example {text:?}"));
            } else {
                examples.push(text.to_owned());
            }
        }
        let params = self.intent_params(name, raw, report);
        let body = if raw.members.is_some() {
            IntentBody::Composite(self.composite(name, raw, spanned, report))
        } else {
            IntentBody::Query(self.query(name, raw, spanned, &params, report))
        };
        Intent {
            id,
            name: name.clone(),
            description: raw.description.get_ref().clone(),
            keywords,
            examples,
            params,
            body,
        }
    }

    fn intent_params(
        &self,
        name: &str,
        raw: &RawIntent,
        report: &mut Report<'_>,
    ) -> Vec<IntentParam> {
        let mut out: Vec<IntentParam> = Vec::new();
        for entry in &raw.params {
            let entry_ref = entry.get_ref();
            let param_name = entry_ref.name.get_ref();
            let Some(&param_id) = self.param_ids.get(param_name.as_str()) else {
                report.at(
                    &entry_ref.name.span(),
                    format!("intent `{name}` uses undeclared param `{param_name}`"),
                );
                continue;
            };
            if out.iter().any(|p| p.param == param_id) {
                report.at(
                    &entry_ref.name.span(),
                    format!("intent `{name}` lists param `{param_name}` twice"),
                );
                continue;
            }
            let param = &self.params[param_id.index()];
            if let Some(other) = out.iter().find(|p| p.kind == param.kind)
                && (other.role.is_none() || param.role.is_none() || other.role == param.role)
            {
                report.at(
                    &entry_ref.name.span(),
                    format!(
                        "intent `{name}` holds params `{}` and `{param_name}` of one kind, {}: \
                         an intent may hold two params of one kind only when both carry \
                         different roles (`role = \"from\"` and `role = \"to\"`)",
                        self.params[other.param.index()].name,
                        param.kind
                    ),
                );
                continue;
            }
            let range = match (&entry_ref.min, &entry_ref.max) {
                (None, None) => None,
                (Some(min), Some(max)) if param.kind.shape() == ValueShape::Int => {
                    if min.get_ref() > max.get_ref() {
                        report.at(
                            &min.span(),
                            format!(
                                "intent `{name}`: param `{param_name}` has min {} above max {}",
                                min.get_ref(),
                                max.get_ref()
                            ),
                        );
                    }
                    Some((*min.get_ref(), *max.get_ref()))
                }
                (Some(_), Some(_)) => {
                    report.at(
                        &entry.span(),
                        format!(
                            "intent `{name}`: param `{param_name}` of kind {} takes no range",
                            param.kind
                        ),
                    );
                    None
                }
                _ => {
                    report.at(&entry.span(), format!("intent `{name}`: param `{param_name}` needs both min and max, or neither"));
                    None
                }
            };
            let requirement = match &entry_ref.default {
                None => {
                    if range.is_some() {
                        report.at(
                            &entry.span(),
                            format!(
                                "intent `{name}`: a range needs a default (param `{param_name}`)"
                            ),
                        );
                    }
                    Requirement::Required
                }
                Some(default) => match default_value(
                    param,
                    default.get_ref(),
                    self.raw.registry.get_ref().as_of.is_some(),
                ) {
                    Ok(value) => {
                        if let (Value::Int(n), Some((min, max))) = (&value, range)
                            && !(min..=max).contains(n)
                        {
                            report.at(&default.span(), format!("intent `{name}`: default {n} of `{param_name}` lies outside [{min}, {max}]"));
                        }
                        Requirement::Optional { default: value, range }
                    }
                    Err(message) => {
                        report.at(
                            &default.span(),
                            format!("intent `{name}`: default of `{param_name}`: {message}"),
                        );
                        Requirement::Required
                    }
                },
            };
            out.push(IntentParam {
                param: param_id,
                kind: param.kind,
                role: param.role,
                requirement,
            });
        }
        out
    }

    fn query(
        &self,
        name: &str,
        raw: &RawIntent,
        spanned: &Spanned<RawIntent>,
        params: &[IntentParam],
        report: &mut Report<'_>,
    ) -> QueryIntent {
        if raw.edges.is_some() {
            report.at(&spanned.span(), format!("intent `{name}` has `edges` but no `members`"));
        }
        let plane = match &raw.plane {
            None => {
                report.at(
                    &spanned.span(),
                    format!("intent `{name}` needs a `plane` (or `members` for a composite)"),
                );
                None
            }
            Some(plane) => {
                let found = self.plane_ids.get(plane.get_ref().as_str()).copied();
                if found.is_none() {
                    report.at(
                        &plane.span(),
                        format!("intent `{name}` names unknown plane `{}`", plane.get_ref()),
                    );
                }
                found
            }
        };
        let mut scopes = BTreeSet::new();
        if let Some(plane) = plane
            && let Some(scope) = &self.planes[plane.index()].scope
        {
            scopes.insert(scope.clone());
        }
        if let Some(scope) = &raw.scope {
            if self.settings.scopes.contains(scope.get_ref()) {
                scopes.insert(scope.get_ref().clone());
            } else {
                report.at(
                    &scope.span(),
                    format!(
                        "intent `{name}` needs unknown scope `{}`: declare it in registry.scopes",
                        scope.get_ref()
                    ),
                );
            }
        }
        let columns = self.columns(name, raw, spanned, report);
        let suppression = self.suppression(name, raw, spanned, plane, &columns, report);
        let sql = match &raw.sql {
            None => {
                report.at(&spanned.span(), format!("intent `{name}` needs `sql`"));
                String::new()
            }
            Some(sql) => {
                let kinds: Vec<ParamKind> = params.iter().map(|p| p.kind).collect();
                if params.len() == raw.params.len() {
                    // With an unknown plane (already reported), the registry's schemas: every
                    // other problem of the statement is still reported.
                    let schemas = plane.map_or(&self.settings.allowed_schemas, |plane| {
                        &self.planes[plane.index()].schemas
                    });
                    self.guard(&format!("intent `{name}`"), sql, schemas, &kinds, report);
                    self.workforce(name, plane, sql, report);
                }
                check_output_columns(name, sql, &columns, report);
                sql.get_ref().clone()
            }
        };
        let window = raw.window.as_ref().and_then(|window| {
            let direction = match window.get_ref().as_str() {
                "past" => WindowDirection::Past,
                "ahead" => WindowDirection::Ahead,
                other => {
                    report.at(
                        &window.span(),
                        format!(
                            "intent `{name}`: unknown window `{other}`: expected past or ahead"
                        ),
                    );
                    return None;
                }
            };
            let measures_time = |kind: ParamKind| match kind {
                ParamKind::Months => true,
                ParamKind::Declared(declared) => declared.ty() == KindType::Duration,
                _ => false,
            };
            if !params.iter().any(|param| measures_time(param.kind)) {
                report.at(
                    &window.span(),
                    format!(
                        "intent `{name}`: a window needs a param of kind months or of a \
                         duration kind"
                    ),
                );
            }
            Some(direction)
        });
        QueryIntent {
            plane: plane.unwrap_or(PlaneId(0)),
            scopes: scopes.into_iter().collect(),
            sql,
            columns,
            suppression,
            window,
        }
    }

    /// Reports the guard's violations of `sql` (of `what`: "intent `x`"), each at its place in
    /// the file.
    fn guard(
        &self,
        what: &str,
        sql: &Spanned<String>,
        schemas: &[String],
        kinds: &[ParamKind],
        report: &mut Report<'_>,
    ) {
        let violations = guard::check_sql(sql.get_ref(), schemas, kinds);
        if violations.is_empty() {
            return;
        }
        // Where the string's content starts in the file: after the quotes, and after the
        // newline that directly follows `"""` or `'''` (TOML trims it).
        let span = sql.span();
        let (line, column) = report.lines.locate(span.start);
        let raw_text = report.lines.text.get(span.clone()).unwrap_or("");
        let (open, skip_newline) = if raw_text.starts_with("\"\"\"") || raw_text.starts_with("'''")
        {
            (3, raw_text[3..].starts_with('\n') || raw_text[3..].starts_with("\r\n"))
        } else {
            (1, false)
        };
        for violation in violations {
            let message = format!("{what}: SQL rejected: {}", violation.message);
            match violation.location {
                Some((sql_line, sql_column)) if sql_line >= 1 => {
                    let (file_line, file_column) = if skip_newline {
                        (line + sql_line, sql_column)
                    } else if sql_line == 1 {
                        (line, column + open + sql_column.saturating_sub(1))
                    } else {
                        (line + sql_line - 1, sql_column)
                    };
                    report.at_line_col(file_line, file_column.max(1), message);
                }
                _ => report.at(&span, message),
            }
        }
    }

    fn columns(
        &self,
        name: &str,
        raw: &RawIntent,
        spanned: &Spanned<RawIntent>,
        report: &mut Report<'_>,
    ) -> Vec<Column> {
        let Some(raw_columns) = &raw.columns else {
            report.at(&spanned.span(), format!("intent `{name}` needs `columns`"));
            return Vec::new();
        };
        if raw_columns.is_empty() {
            report.at(&spanned.span(), format!("intent `{name}` has no columns"));
        }
        let mut columns: Vec<Column> = Vec::new();
        for column in raw_columns {
            let column_ref = column.get_ref();
            check_name(report, "column", &column_ref.name);
            if columns.iter().any(|c| &c.name == column_ref.name.get_ref()) {
                report.at(
                    &column_ref.name.span(),
                    format!("intent `{name}` has column `{}` twice", column_ref.name.get_ref()),
                );
            }
            let ty = ColumnType::from_name(column_ref.ty.get_ref()).unwrap_or_else(|| {
                let known: Vec<&str> = ColumnType::ALL.iter().map(|t| t.as_str()).collect();
                report.at(
                    &column_ref.ty.span(),
                    format!(
                        "unknown column type `{}`: expected one of {}",
                        column_ref.ty.get_ref(),
                        known.join(", ")
                    ),
                );
                ColumnType::Text
            });
            let provides = column_ref.provides.as_ref().and_then(|provides| {
                let Some(&param) = self.param_ids.get(provides.get_ref().as_str()) else {
                    report.at(
                        &provides.span(),
                        format!(
                            "column `{}` provides undeclared param `{}`",
                            column_ref.name.get_ref(),
                            provides.get_ref()
                        ),
                    );
                    return None;
                };
                let kind = self.params[param.index()].kind;
                if !ty.can_provide(kind) {
                    report.at(
                        &provides.span(),
                        format!(
                            "column `{}` of type {ty} cannot provide param `{}` of kind {kind}",
                            column_ref.name.get_ref(),
                            provides.get_ref()
                        ),
                    );
                }
                Some(param)
            });
            let unit = column_ref.unit.as_ref().and_then(|unit| match unit.get_ref().as_str() {
                "usd" if matches!(ty, ColumnType::Int | ColumnType::Decimal) => Some(Unit::Usd),
                "usd" => {
                    report.at(
                        &unit.span(),
                        format!(
                            "column `{}` of type {ty} cannot have a unit: only int and decimal can",
                            column_ref.name.get_ref()
                        ),
                    );
                    None
                }
                other => {
                    report.at(&unit.span(), format!("unknown unit `{other}`: expected usd"));
                    None
                }
            });
            columns.push(Column { name: column_ref.name.get_ref().clone(), ty, provides, unit });
        }
        columns
    }

    /// Invariant 5's second line: an intent of a plane whose rows are the workforce (`workforce
    /// = true`) may not return them ordered by a measure or cut to a top N, unless the plane
    /// counts (its rows are suppressed counts, never individuals).
    fn workforce(
        &self,
        name: &str,
        plane: Option<PlaneId>,
        sql: &Spanned<String>,
        report: &mut Report<'_>,
    ) {
        let Some(plane) = plane.map(|plane| &self.planes[plane.index()]) else { return };
        if plane.is_workforce() && !plane.counts && guard::ranks_rows(sql.get_ref()) {
            report.at(
                &sql.span(),
                format!(
                    "intent `{name}` returns rows of plane `{}`, whose rows are the workforce \
                     (`workforce = true`), ordered by a measure or cut to a top N: ranking or \
                     scoring individual workers is an automated employment decision, which the \
                     planner never makes. Return the rows unordered, or make the plane \
                     counts-only (`counts = true`) with a suppression spec",
                    plane.name
                ),
            );
        }
    }

    fn suppression(
        &self,
        name: &str,
        raw: &RawIntent,
        spanned: &Spanned<RawIntent>,
        plane: Option<PlaneId>,
        columns: &[Column],
        report: &mut Report<'_>,
    ) -> Option<Suppression> {
        let counts = plane.is_some_and(|plane| self.planes[plane.index()].counts);
        let Some(raw_suppression) = &raw.suppression else {
            if counts {
                report.at(
                    &spanned.span(),
                    format!("count intent `{name}` needs a `suppression` spec"),
                );
            }
            return None;
        };
        if !counts {
            report.at(
                &raw_suppression.span(),
                format!("intent `{name}` has a `suppression` spec but its plane does not count"),
            );
        }
        let spec = raw_suppression.get_ref();
        let mut count_columns = Vec::new();
        if spec.count_columns.is_empty() {
            report.at(
                &raw_suppression.span(),
                format!("intent `{name}`: suppression names no count column"),
            );
        }
        for column in &spec.count_columns {
            match columns.iter().position(|c| &c.name == column.get_ref()) {
                None => report.at(
                    &column.span(),
                    format!("intent `{name}`: unknown count column `{}`", column.get_ref()),
                ),
                Some(index) if columns[index].ty != ColumnType::Int => {
                    report.at(
                        &column.span(),
                        format!(
                            "intent `{name}`: count column `{}` must have type int",
                            column.get_ref()
                        ),
                    );
                }
                Some(index) if count_columns.contains(&index) => {
                    report.at(
                        &column.span(),
                        format!(
                            "intent `{name}`: count column `{}` listed twice",
                            column.get_ref()
                        ),
                    );
                }
                Some(index) => count_columns.push(index),
            }
        }
        let k = match &spec.k {
            None => self.settings.default_k,
            Some(k) => match u32::try_from(*k.get_ref()) {
                Ok(k) if k >= 2 => k,
                _ => {
                    report.at(
                        &k.span(),
                        format!("intent `{name}`: k must be at least 2, found {}", k.get_ref()),
                    );
                    self.settings.default_k
                }
            },
        };
        let mut sum_over = Vec::new();
        for column in &spec.sum_over {
            match columns.iter().position(|c| &c.name == column.get_ref()) {
                Some(index)
                    if columns[index].ty == ColumnType::Text
                        && !count_columns.contains(&index)
                        && !sum_over.contains(&index) =>
                {
                    sum_over.push(index);
                }
                Some(_) => report.at(
                    &column.span(),
                    format!(
                        "intent `{name}`: `sum_over` column `{}` must be a text label column, \
                         listed once",
                        column.get_ref()
                    ),
                ),
                None => report.at(
                    &column.span(),
                    format!("intent `{name}`: unknown `sum_over` column `{}`", column.get_ref()),
                ),
            }
        }
        Some(Suppression { count_columns, k, sum_over })
    }

    fn composite(
        &self,
        name: &str,
        raw: &RawIntent,
        spanned: &Spanned<RawIntent>,
        report: &mut Report<'_>,
    ) -> Composite {
        for (present, key) in [
            (raw.plane.is_some(), "plane"),
            (raw.scope.is_some(), "scope"),
            (raw.sql.is_some(), "sql"),
            (raw.columns.is_some(), "columns"),
            (raw.suppression.is_some(), "suppression"),
            (raw.window.is_some(), "window"),
        ] {
            if present {
                report
                    .at(&spanned.span(), format!("composite intent `{name}` may not have `{key}`"));
            }
        }
        let raw_members = raw.members.as_deref().unwrap_or_default();
        if raw_members.len() < 2 {
            report.at(
                &spanned.span(),
                format!("composite intent `{name}` needs at least two members"),
            );
        }
        let mut members = Vec::new();
        for member in raw_members {
            match self.by_name.get(member.get_ref()) {
                None => report.at(
                    &member.span(),
                    format!("composite `{name}` names unknown member `{}`", member.get_ref()),
                ),
                Some(&id) if members.contains(&id) => {
                    report.at(
                        &member.span(),
                        format!("composite `{name}` lists member `{}` twice", member.get_ref()),
                    );
                }
                Some(&id) => members.push(id),
            }
        }
        let mut edges = Vec::new();
        for raw_edge in raw.edges.as_deref().unwrap_or_default() {
            if let Some(edge) = self.composite_edge(name, &members, raw_edge, report) {
                if edges.iter().any(|e: &CompositeEdge| e.to == edge.to && e.param == edge.param) {
                    report.at(
                        &raw_edge.span(),
                        format!("composite `{name}` binds one param of one member twice"),
                    );
                } else {
                    edges.push(edge);
                }
            }
        }
        Composite { members, edges }
    }

    fn composite_edge(
        &self,
        name: &str,
        members: &[IntentId],
        edge: &Spanned<crate::file::RawEdge>,
        report: &mut Report<'_>,
    ) -> Option<CompositeEdge> {
        let e = edge.get_ref();
        let mut member = |field: &Spanned<String>| {
            let id = self.by_name.get(field.get_ref()).copied().filter(|id| members.contains(id));
            if id.is_none() {
                report.at(
                    &field.span(),
                    format!("composite `{name}`: edge names `{}`, not a member", field.get_ref()),
                );
            }
            id
        };
        let from = member(&e.from);
        let to = member(&e.to);
        let (from, to) = (from?, to?);
        if from == to {
            report.at(
                &edge.span(),
                format!("composite `{name}`: an edge may not loop on one member"),
            );
            return None;
        }
        let from_raw = self.raw.intent[from.index()].get_ref();
        let to_raw = self.raw.intent[to.index()].get_ref();
        if from_raw.members.is_some() || to_raw.members.is_some() {
            report.at(
                &edge.span(),
                format!("composite `{name}`: edges join query intents, not composites"),
            );
            return None;
        }
        let Some(&param) = self.param_ids.get(e.param.get_ref().as_str()) else {
            report.at(
                &e.param.span(),
                format!("composite `{name}`: edge binds undeclared param `{}`", e.param.get_ref()),
            );
            return None;
        };
        let columns = from_raw.columns.as_deref().unwrap_or_default();
        let Some(column) =
            columns.iter().position(|c| c.get_ref().name.get_ref() == e.column.get_ref())
        else {
            report.at(
                &e.column.span(),
                format!(
                    "composite `{name}`: `{}` has no column `{}`",
                    e.from.get_ref(),
                    e.column.get_ref()
                ),
            );
            return None;
        };
        let provides = columns[column].get_ref().provides.as_ref().map(|p| p.get_ref().as_str());
        if provides != Some(e.param.get_ref().as_str()) {
            report.at(
                &e.column.span(),
                format!(
                    "composite `{name}`: column `{}.{}` does not provide `{}`",
                    e.from.get_ref(),
                    e.column.get_ref(),
                    e.param.get_ref()
                ),
            );
            return None;
        }
        if !to_raw.params.iter().any(|p| p.get_ref().name.get_ref() == e.param.get_ref()) {
            report.at(
                &e.to.span(),
                format!(
                    "composite `{name}`: `{}` has no param `{}`",
                    e.to.get_ref(),
                    e.param.get_ref()
                ),
            );
            return None;
        }
        Some(CompositeEdge { from, column, to, param })
    }
}

/// A composite's params must each be a param of some member (or of a member's members).
/// Reports a statement whose result columns differ from the intent's `columns`: their count,
/// or a name PostgreSQL would give a column (an alias, a column's or a function's name) that is
/// not the one `columns` lists at that place. A column the text does not name (an expression
/// without an alias) and a statement selecting `*` are not judged.
fn check_output_columns(
    name: &str,
    sql: &Spanned<String>,
    columns: &[Column],
    report: &mut Report<'_>,
) {
    let Some(names) = guard::output_names(sql.get_ref()) else { return };
    if columns.is_empty() {
        return;
    }
    if names.len() != columns.len() {
        let listed: Vec<&str> = columns.iter().map(|c| c.name.as_str()).collect();
        report.at(
            &sql.span(),
            format!(
                "intent `{name}`: the SQL returns {} column(s), `columns` lists {} ({}): make \
                 them the same, in the same order",
                names.len(),
                columns.len(),
                listed.join(", ")
            ),
        );
        return;
    }
    for (position, (found, column)) in names.iter().zip(columns).enumerate() {
        if let Some(found) = found
            && found != &column.name
        {
            report.at(
                &sql.span(),
                format!(
                    "intent `{name}`: the SQL's column {} is named `{found}`, `columns` lists \
                     `{}` there: alias it (`AS {}`) or rename the column",
                    position + 1,
                    column.name,
                    column.name
                ),
            );
        }
    }
}

fn check_composite_params(intents: &mut [Intent], raw: &RawFile, report: &mut Report<'_>) {
    for index in 0..intents.len() {
        let Some(composite) = intents[index].composite() else { continue };
        let mut reachable = BTreeSet::new();
        let mut stack: Vec<IntentId> = composite.members.clone();
        let mut seen = BTreeSet::new();
        while let Some(id) = stack.pop() {
            if !seen.insert(id) {
                continue;
            }
            let member = &intents[id.index()];
            reachable.extend(member.params.iter().map(|p| p.param));
            if let Some(inner) = member.composite() {
                stack.extend(inner.members.iter().copied());
            }
        }
        for (position, param) in intents[index].params.iter().enumerate() {
            if !reachable.contains(&param.param) {
                let entry = &raw.intent[index].get_ref().params[position];
                report.at(
                    &entry.span(),
                    format!(
                        "composite `{}`: param `{}` is not a param of any member",
                        intents[index].name,
                        entry.get_ref().name.get_ref()
                    ),
                );
            }
        }
    }
}

/// Composites may contain composites, but never themselves, directly or not.
fn check_composite_cycles(intents: &[Intent], raw: &RawFile, report: &mut Report<'_>) {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Open,
        Done,
    }
    fn visit(id: IntentId, intents: &[Intent], marks: &mut [Mark]) -> bool {
        match marks[id.index()] {
            Mark::Open => return true,
            Mark::Done => return false,
            Mark::New => {}
        }
        marks[id.index()] = Mark::Open;
        let mut cycle = false;
        if let Some(composite) = intents[id.index()].composite() {
            for &member in &composite.members {
                cycle |= visit(member, intents, marks);
            }
        }
        marks[id.index()] = Mark::Done;
        cycle
    }
    for intent in intents {
        if intent.composite().is_none() {
            continue;
        }
        let mut marks = vec![Mark::New; intents.len()];
        if visit(intent.id, intents, &mut marks) {
            report.at(
                &raw.intent[intent.id.index()].get_ref().name.span(),
                format!("composite `{}` contains itself through its members", intent.name),
            );
        }
    }
}

/// A default written in the file, checked against its param's kind. A date range's bound may
/// be relative (`["@D-6d", "@D+1d"]`: the week up to the data's date) where the registry reads
/// its data's date (`as_of`).
fn default_value(
    param: &Param,
    value: &toml::Value,
    as_of: bool,
) -> std::result::Result<Value, String> {
    let text_in = |text: &str| -> std::result::Result<Value, String> {
        if !param.values.is_empty() && !param.values.iter().any(|v| v == text) {
            return Err(format!("`{text}` is not among the values {:?}", param.values));
        }
        Ok(Value::Text(text.to_owned()))
    };
    match (param.kind.shape(), value) {
        (ValueShape::Int, toml::Value::Integer(n)) => Ok(Value::Int(*n)),
        (ValueShape::Int, _) => Err("expected an integer".to_owned()),
        (ValueShape::List, toml::Value::Array(items)) if param.kind.is_period() => {
            // Any well-formed relative bound resolves against any day.
            let relative = |text: &str| {
                text.starts_with('@') && crate::resolve_bound(text, "2000-01-31").is_some()
            };
            match items.as_slice() {
                [toml::Value::String(start), toml::Value::String(end)]
                    if [start, end]
                        .iter()
                        .all(|it| is_range_end(it) || (as_of && relative(it))) =>
                {
                    Ok(Value::List(vec![start.clone(), end.clone()]))
                }
                [toml::Value::String(start), toml::Value::String(end)]
                    if !as_of && [start, end].iter().any(|it| relative(it)) =>
                {
                    Err("a relative bound is read against the data's date: give the registry \
                         an `as_of` query, or write ISO dates"
                        .to_owned())
                }
                _ => Err("expected [start, end]: two ISO dates (YYYY-MM-DD), `-infinity`, \
                          `infinity` or, with the registry's `as_of`, relative bounds \
                          (`[\"@D-6d\", \"@D+1d\"]`)"
                    .to_owned()),
            }
        }
        (ValueShape::List, toml::Value::Array(items)) => {
            let mut list = Vec::new();
            for item in items {
                let toml::Value::String(text) = item else {
                    return Err("expected an array of strings".to_owned());
                };
                text_in(text)?;
                list.push(text.clone());
            }
            if let ParamKind::Declared(_) = param.kind {
                // A declared list keeps the dictionary's order.
                list.sort_by_key(|item| param.values.iter().position(|v| v == item));
            } else {
                list.sort();
            }
            list.dedup();
            Ok(Value::List(list))
        }
        (ValueShape::List, _) => Err("expected an array of strings".to_owned()),
        (ValueShape::Date, toml::Value::String(text)) if is_iso_day(text) => {
            Ok(Value::Text(text.clone()))
        }
        (ValueShape::Date, _) => Err("expected an ISO date, YYYY-MM-DD".to_owned()),
        (_, toml::Value::String(text)) => text_in(text),
        (_, _) => Err("expected a string".to_owned()),
    }
}

/// `YYYY-MM-DD` with a month 1..=12 and a day 1..=31.
fn is_iso_day(text: &str) -> bool {
    let b = text.as_bytes();
    b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter().enumerate().all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
        && text[5..7].parse::<u8>().is_ok_and(|m| (1..=12).contains(&m))
        && text[8..10].parse::<u8>().is_ok_and(|d| (1..=31).contains(&d))
}

/// One end of a date range: an ISO day or an open end.
fn is_range_end(text: &str) -> bool {
    is_iso_day(text) || text == "infinity" || text == "-infinity"
}
