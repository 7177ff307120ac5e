//! The model proposer: asks an OpenAI-compatible server for intent names, constrained at decoding
//! time to the closed set, and parses the reply strictly.

use std::fmt::Write as _;

use serde_json::{Value as Json, json};

use super::{ChatReply, Constraint, ModelClient};
use crate::{BoxFuture, Catalog, Error, Proposals, ProposeRequest, Proposer, Result};

/// The most names one proposal may hold (the plan node cap).
pub(crate) const MAX_NAMES: usize = 6;

/// The largest reply content parsed, in bytes; anything larger is unusable.
const MAX_CONTENT_BYTES: usize = 4096;

/// The most of an intent's registry examples shown to the model.
const MAX_PROMPT_EXAMPLES: usize = 3;

/// Proposes intent names by asking a model, K samples concurrently.
#[derive(Debug)]
pub struct ModelProposer {
    client: ModelClient,
    /// The closed set, in registry order.
    names: Vec<String>,
    schema: Json,
    system_prompt: String,
    catalog_text: String,
}

impl ModelProposer {
    /// A proposer over `catalog`, calling through `client`.
    pub fn new(client: ModelClient, catalog: &Catalog) -> ModelProposer {
        let names: Vec<String> = catalog.names().map(str::to_owned).collect();
        let listed: Vec<&str> = catalog.names().collect();
        let schema = json!({
            "type": "object",
            "properties": {
                "intents": {
                    "type": "array",
                    "items": { "type": "string", "enum": listed },
                    "maxItems": MAX_NAMES,
                }
            },
            "required": ["intents"],
            "additionalProperties": false,
        });
        let mut catalog_text = String::new();
        for card in catalog.cards() {
            let needs: Vec<&str> = card.required.iter().map(|kind| kind.as_str()).collect();
            let _ = writeln!(
                catalog_text,
                "- {}: {} (needs: {})",
                card.name,
                card.description.trim(),
                if needs.is_empty() { "nothing".to_owned() } else { needs.join(", ") }
            );
            // The registry's examples, as its users ask: a few, so the prompt stays short.
            for example in card.examples.iter().take(MAX_PROMPT_EXAMPLES) {
                let _ = writeln!(catalog_text, "  e.g. {:?}", example.text);
            }
        }
        let system_prompt = "You choose tools for a question. Pick every tool the question needs, \
            at most 6, only from the list. Pick none when no tool fits. Answer with JSON only: \
            {\"intents\": [NAME, ...]}."
            .to_owned();
        ModelProposer { client, names, schema, system_prompt, catalog_text }
    }

    /// The JSON schema the replies are constrained to.
    pub fn schema(&self) -> &Json {
        &self.schema
    }

    fn user_prompt(&self, request: &ProposeRequest<'_>) -> String {
        let available: Vec<&str> = request.available.iter().map(|kind| kind.as_str()).collect();
        format!(
            "Tools:\n{}\nParams found in the question: {}.\nQuestion: {}\nWhich tools?",
            self.catalog_text,
            if available.is_empty() { "none".to_owned() } else { available.join(", ") },
            request.question
        )
    }

    /// One sample. With K > 1 the samples are drawn at the sampling temperature, so that they
    /// can differ and the majority vote means something; one sample is drawn at `temperature`.
    async fn sample(&self, user: &str, samples: usize) -> Result<ChatReply> {
        let constraint = Constraint::Schema { name: "intent_choice", schema: &self.schema };
        let config = self.client.config();
        let temperature = if samples > 1 { config.sample_temperature } else { config.temperature };
        self.client
            .chat(&[("system", &self.system_prompt), ("user", user)], constraint, temperature)
            .await
    }
}

impl Proposer for ModelProposer {
    fn propose<'a>(&'a self, request: ProposeRequest<'a>) -> BoxFuture<'a, Result<Proposals>> {
        Box::pin(async move {
            if request.samples == 0 {
                return Err(Error::Config("at least one sample is needed".to_owned()));
            }
            let user = self.user_prompt(&request);
            let calls = (0..request.samples).map(|_| self.sample(&user, request.samples));
            let replies = futures::future::join_all(calls).await;
            let mut proposals = Proposals::default();
            let mut first_error = None;
            for reply in replies {
                match reply {
                    Ok(ChatReply::Contents(contents)) => {
                        // One call gives one sample; extra choices (servers that ignore `n`) are
                        // ignored.
                        let content = contents.first().map_or("", String::as_str);
                        let parsed = parse_reply(content, &self.names);
                        proposals.dropped_names += parsed.dropped;
                        if parsed.unusable {
                            proposals.unusable_replies += 1;
                        }
                        proposals.samples.push(parsed.names);
                    }
                    Ok(ChatReply::Unusable(_)) => {
                        proposals.unusable_replies += 1;
                        proposals.samples.push(Vec::new());
                    }
                    Err(error) => {
                        proposals.unusable_replies += 1;
                        proposals.samples.push(Vec::new());
                        first_error.get_or_insert(error);
                    }
                }
            }
            match first_error {
                Some(error) if proposals.unusable_replies == proposals.samples.len() => Err(error),
                _ => Ok(proposals),
            }
        })
    }
}

/// One reply parsed against the closed set.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ParsedReply {
    /// The names in the set, in reply order, without repeats.
    pub names: Vec<String>,
    /// Names outside the set (dropped).
    pub dropped: usize,
    /// Names of the set past the first six in registry order (cut).
    pub cut: usize,
    /// The reply was garbage, empty or oversized, so it gives an empty proposal.
    pub unusable: bool,
}

/// Parses a reply strictly: exactly `{"intents": [string, ...]}`. Names outside `names` (the
/// closed set in registry order) are dropped and counted; a reply naming more than six of the
/// set keeps the first six in registry order, the rest counted as cut; anything else gives an
/// empty, unusable proposal.
pub fn parse_reply(content: &str, names: &[String]) -> ParsedReply {
    let unusable = ParsedReply { unusable: true, ..ParsedReply::default() };
    if content.trim().is_empty() || content.len() > MAX_CONTENT_BYTES {
        return unusable;
    }
    let Ok(Json::Object(object)) = serde_json::from_str::<Json>(content) else {
        return unusable;
    };
    if object.len() != 1 {
        return unusable;
    }
    let Some(Json::Array(items)) = object.get("intents") else {
        return unusable;
    };
    let mut parsed = ParsedReply::default();
    for item in items {
        let Json::String(name) = item else {
            return unusable;
        };
        if !names.contains(name) {
            parsed.dropped += 1;
        } else if !parsed.names.contains(name) {
            parsed.names.push(name.clone());
        }
    }
    if parsed.names.len() > MAX_NAMES {
        // The first six in registry order stay, in the order the reply gave them.
        let rank = |name: &String| names.iter().position(|it| it == name).unwrap_or(usize::MAX);
        let mut ranked: Vec<&String> = parsed.names.iter().collect();
        ranked.sort_by_key(|name| rank(name));
        let kept: Vec<String> = ranked.into_iter().take(MAX_NAMES).cloned().collect();
        parsed.cut = parsed.names.len() - MAX_NAMES;
        parsed.names.retain(|name| kept.contains(name));
    }
    parsed
}

#[cfg(test)]
mod tests {
    //! Strict reply parsing.

    use super::*;

    fn names() -> Vec<String> {
        ["top_incumbents", "vendor_profile"].into_iter().map(str::to_owned).collect()
    }

    #[track_caller]
    fn check(content: &str, expected: &[&str], dropped: usize, unusable: bool) {
        let parsed = parse_reply(content, &names());
        assert_eq!(parsed.names, expected, "names of {content}");
        assert_eq!(parsed.dropped, dropped, "dropped of {content}");
        assert_eq!(parsed.unusable, unusable, "unusable of {content}");
    }

    #[test]
    fn keeps_names_in_the_set() {
        check(
            r#"{"intents": ["vendor_profile", "top_incumbents"]}"#,
            &["vendor_profile", "top_incumbents"],
            0,
            false,
        );
        check("{\n  \"intents\": [\"top_incumbents\"]\n}", &["top_incumbents"], 0, false);
        check(r#"{"intents": []}"#, &[], 0, false);
    }

    #[test]
    fn drops_and_counts_names_outside_the_set() {
        check(
            r#"{"intents": ["drop_table", "top_incumbents", "TOP_INCUMBENTS"]}"#,
            &["top_incumbents"],
            2,
            false,
        );
    }

    #[test]
    fn removes_repeats() {
        check(
            r#"{"intents": ["top_incumbents", "top_incumbents"]}"#,
            &["top_incumbents"],
            0,
            false,
        );
    }

    #[test]
    fn garbage_gives_an_empty_proposal() {
        for content in [
            "",
            "   ",
            "top_incumbents",
            "[\"top_incumbents\"]",
            r#"{"intents": "top_incumbents"}"#,
            r#"{"intents": [1, "top_incumbents"]}"#,
            r#"{"intents": ["top_incumbents"], "sql": "drop table"}"#,
            r#"{"tool": "top_incumbents"}"#,
            r#"{"intents": ["top_incumbents"]"#,
        ] {
            check(content, &[], 0, true);
        }
    }

    #[test]
    fn more_than_six_names_keep_the_first_six_in_registry_order() {
        let names: Vec<String> = (0..9).map(|n| format!("intent_{n}")).collect();
        // Reply order 8, 0, 7, 1, 6, 2, 5, 3, 4: registry order keeps 0 to 5.
        let reply = [8, 0, 7, 1, 6, 2, 5, 3, 4].map(|n| format!("\"intent_{n}\"")).join(",");
        let parsed = parse_reply(&format!("{{\"intents\": [{reply}, \"nope\"]}}"), &names);
        let kept = [0, 1, 2, 5, 3, 4].map(|n| format!("intent_{n}"));
        assert_eq!(parsed.names, kept, "the first six in registry order, in reply order");
        assert_eq!((parsed.cut, parsed.dropped, parsed.unusable), (3, 1, false));
        // Repeats of the same name are not more names.
        let seven = ["\"top_incumbents\""; 7].join(",");
        check(&format!("{{\"intents\": [{seven}]}}"), &["top_incumbents"], 0, false);
    }

    #[test]
    fn oversized_gives_an_empty_proposal() {
        let padded = format!("{{\"intents\": [\"top_incumbents\"]{}}}", " ".repeat(5000));
        check(&padded, &[], 0, true);
    }
}
