//! Edits of a registry file's text that keep everything else as written: comments, layout, key
//! order. `planner fit --write` adds the examples and keywords it proposes to an intent, and
//! `planner eval --without-examples` reads a registry as it would be without its examples.
//!
//! The text is edited as TOML (toml_edit), never as lines, and the result is not checked here:
//! callers load it with [`Registry::from_toml`](crate::Registry::from_toml) before trusting it.

use std::fmt;

use toml_edit::{Array, DocumentMut, Item, Value};

/// Which list of an intent a phrasing goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Phrasing {
    /// `examples`: a question the intent answers.
    Example,
    /// `keywords`: a word or phrase that points at the intent.
    Keyword,
}

impl Phrasing {
    /// The key of the intent's list.
    pub fn key(self) -> &'static str {
        match self {
            Phrasing::Example => "examples",
            Phrasing::Keyword => "keywords",
        }
    }
}

impl fmt::Display for Phrasing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Phrasing::Example => "example",
            Phrasing::Keyword => "keyword",
        })
    }
}

/// Why a registry's text could not be edited.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    /// The text is not TOML.
    #[error("the registry is not valid TOML: {0}")]
    Syntax(String),
    /// No `[[intent]]` has this name.
    #[error("the registry has no intent named `{0}`")]
    NoIntent(String),
    /// The intent's list is there but is not an array of strings.
    #[error("`{key}` of intent `{intent}` is not an array")]
    NotAnArray {
        /// The intent.
        intent: String,
        /// The list's key.
        key: &'static str,
    },
}

/// `text` with `value` appended to the `examples` or `keywords` of the intent named `intent`
/// (the list is created after the intent's `keywords`, or its `description`, when missing). A
/// value the list already holds leaves the text as it is.
pub fn add_phrasing(
    text: &str,
    intent: &str,
    phrasing: Phrasing,
    value: &str,
) -> Result<String, EditError> {
    let mut document = parse(text)?;
    let table = intent_tables(&mut document)
        .find(|table| table.get("name").and_then(Item::as_str) == Some(intent))
        .ok_or_else(|| EditError::NoIntent(intent.to_owned()))?;
    let key = phrasing.key();
    if !table.contains_key(key) {
        // Beside the intent's other words, not after its SQL and columns: right after the
        // first of these the intent has.
        let anchor = ["keywords", "description", "name"]
            .into_iter()
            .find(|other| *other != key && table.contains_key(other));
        let order: Vec<String> = table.iter().map(|(name, _)| name.to_owned()).collect();
        table.insert(key, Item::Value(Value::Array(Array::new())));
        if let Some(anchor) = anchor {
            // (the key after which it goes, 1 for the new list) sorts it in; the sort is stable.
            let rank = |name: &str| match order.iter().position(|other| other == name) {
                Some(index) => (index, 0),
                None => (order.iter().position(|other| other == anchor).unwrap_or(0), 1),
            };
            table.sort_values_by(|left, _, right, _| rank(left.get()).cmp(&rank(right.get())));
        }
    }
    let array = table
        .get_mut(key)
        .and_then(Item::as_array_mut)
        .ok_or(EditError::NotAnArray { intent: intent.to_owned(), key })?;
    if !array.iter().any(|item| item.as_str() == Some(value)) {
        array.push(value);
    }
    Ok(document.to_string())
}

/// `text` with every intent's `examples` removed: the registry as its other words alone read
/// it.
pub fn without_examples(text: &str) -> Result<String, EditError> {
    let mut document = parse(text)?;
    for table in intent_tables(&mut document) {
        table.remove(Phrasing::Example.key());
    }
    Ok(document.to_string())
}

fn parse(text: &str) -> Result<DocumentMut, EditError> {
    text.parse::<DocumentMut>().map_err(|err| EditError::Syntax(err.message().to_owned()))
}

/// The `[[intent]]` tables, in file order.
fn intent_tables(document: &mut DocumentMut) -> impl Iterator<Item = &mut toml_edit::Table> {
    document
        .get_mut("intent")
        .and_then(Item::as_array_of_tables_mut)
        .into_iter()
        .flat_map(|tables| tables.iter_mut())
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = r#"# a comment that stays
[[intent]]
name = "first"
description = "The first."
keywords = ["one"]
sql = "SELECT 1 AS one"

[[intent]]
name = "second"
description = "The second." # trailing comment
sql = "SELECT 2 AS two"
"#;

    #[test]
    fn a_keyword_joins_the_intents_list_and_nothing_else_moves() {
        let edited = add_phrasing(FILE, "first", Phrasing::Keyword, "uno").unwrap();
        assert_eq!(edited, FILE.replace(r#"["one"]"#, r#"["one", "uno"]"#));
        // Said twice, it is there once.
        assert_eq!(add_phrasing(&edited, "first", Phrasing::Keyword, "uno").unwrap(), edited);
    }

    #[test]
    fn a_missing_list_is_created_after_the_intents_words() {
        let edited = add_phrasing(FILE, "second", Phrasing::Example, "what is two?").unwrap();
        let second = &edited[edited.find("name = \"second\"").unwrap()..];
        let description = second.find("description").unwrap();
        let examples = second.find("examples = [\"what is two?\"]").unwrap();
        let sql = second.find("sql").unwrap();
        assert!(description < examples && examples < sql, "{edited}");
        assert!(edited.starts_with("# a comment that stays"));
        assert!(edited.contains("# trailing comment"));
    }

    #[test]
    fn examples_go_and_the_rest_stays() {
        let edited = add_phrasing(FILE, "first", Phrasing::Example, "one?").unwrap();
        assert_eq!(without_examples(&edited).unwrap(), FILE);
    }

    #[test]
    fn an_unknown_intent_or_broken_text_is_an_error() {
        assert_eq!(
            add_phrasing(FILE, "third", Phrasing::Keyword, "x"),
            Err(EditError::NoIntent("third".to_owned()))
        );
        assert!(matches!(
            add_phrasing("[[intent]", "first", Phrasing::Keyword, "x"),
            Err(EditError::Syntax(_))
        ));
    }
}
