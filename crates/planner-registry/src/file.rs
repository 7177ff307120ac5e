//! The registry file as written: serde types with source spans, before validation.

use std::collections::BTreeMap;

use toml::Spanned;

/// The whole file, each section parsed on its own.
#[derive(Debug)]
pub(crate) struct RawFile {
    pub(crate) registry: Spanned<RawSettings>,
    pub(crate) planes: BTreeMap<Spanned<String>, Spanned<RawPlane>>,
    pub(crate) params: BTreeMap<Spanned<String>, Spanned<RawParam>>,
    pub(crate) kinds: BTreeMap<Spanned<String>, Spanned<crate::kinds::RawKind>>,
    pub(crate) intent: Vec<Spanned<RawIntent>>,
}

/// `[registry]`.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawSettings {
    pub(crate) node_cap: Spanned<i64>,
    pub(crate) fan_out: Option<Spanned<i64>>,
    pub(crate) default_k: Spanned<i64>,
    pub(crate) allowed_schemas: Vec<Spanned<String>>,
    #[serde(default)]
    pub(crate) scopes: Vec<Spanned<String>>,
    pub(crate) as_of: Option<Spanned<RawAsOf>>,
    pub(crate) help: Option<Spanned<String>>,
}

/// `[registry] as_of`.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawAsOf {
    pub(crate) plane: Spanned<String>,
    pub(crate) sql: Spanned<String>,
}

/// One `[planes]` entry.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawPlane {
    pub(crate) tenant: bool,
    #[serde(default)]
    pub(crate) counts: bool,
    pub(crate) workforce: Option<bool>,
    pub(crate) scope: Option<Spanned<String>>,
    pub(crate) schemas: Option<Spanned<Vec<Spanned<String>>>>,
    #[serde(default)]
    pub(crate) people: Vec<Spanned<String>>,
}

/// One `[params]` entry.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawParam {
    pub(crate) kind: Spanned<String>,
    #[serde(default)]
    pub(crate) values: Vec<Spanned<String>>,
    pub(crate) role: Option<Spanned<String>>,
}

/// One `[[intent]]` entry, query or composite.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawIntent {
    pub(crate) name: Spanned<String>,
    pub(crate) description: Spanned<String>,
    #[serde(default)]
    pub(crate) keywords: Vec<Spanned<String>>,
    #[serde(default)]
    pub(crate) examples: Vec<Spanned<String>>,
    pub(crate) plane: Option<Spanned<String>>,
    pub(crate) scope: Option<Spanned<String>>,
    #[serde(default)]
    pub(crate) params: Vec<Spanned<RawIntentParam>>,
    pub(crate) sql: Option<Spanned<String>>,
    pub(crate) columns: Option<Vec<Spanned<RawColumn>>>,
    pub(crate) suppression: Option<Spanned<RawSuppression>>,
    pub(crate) window: Option<Spanned<String>>,
    pub(crate) members: Option<Vec<Spanned<String>>>,
    pub(crate) edges: Option<Vec<Spanned<RawEdge>>>,
}

/// One entry of an intent's `params`.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawIntentParam {
    pub(crate) name: Spanned<String>,
    pub(crate) default: Option<Spanned<toml::Value>>,
    pub(crate) min: Option<Spanned<i64>>,
    pub(crate) max: Option<Spanned<i64>>,
}

/// One entry of an intent's `columns`.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawColumn {
    pub(crate) name: Spanned<String>,
    #[serde(rename = "type")]
    pub(crate) ty: Spanned<String>,
    pub(crate) provides: Option<Spanned<String>>,
    pub(crate) unit: Option<Spanned<String>>,
}

/// An intent's `suppression`.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawSuppression {
    pub(crate) count_columns: Vec<Spanned<String>>,
    pub(crate) k: Option<Spanned<i64>>,
    #[serde(default)]
    pub(crate) sum_over: Vec<Spanned<String>>,
}

/// One entry of a composite's `edges`.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawEdge {
    pub(crate) from: Spanned<String>,
    pub(crate) column: Spanned<String>,
    pub(crate) to: Spanned<String>,
    pub(crate) param: Spanned<String>,
}
