//! Roles: which end of a directed pair each value names.
//!
//! English names the two ends of a directed pair with prepositions: source prepositions mark
//! where something starts ("from Seattle", "out of Denver", "leaving Reno", "departing Boise",
//! "origin Tacoma") and goal prepositions where it ends ("to Denver", "into Reno", "towards
//! Boise", "arriving at Tacoma", "destination Spokane", "bound for Fresno"). One pass over the
//! words right before each value (and between two values of one kind) reads them:
//!
//! - a cue right before a value, with only a determiner between ("from the Seattle hub"), gives
//!   it its role;
//! - "between X and Y" makes X the source and Y the goal (a noun may follow X: "between the
//!   Reno hub and Boise"), and so do "X-Y", "X → Y", "X -> Y"
//!   and "X > Y" written with nothing else between two values of one kind;
//! - "X to Y": an unmarked value right before a goal-marked one of its kind is the source;
//! - when exactly one end of a kind is marked (one value) and exactly one other value of that
//!   kind is unmarked, the unmarked one is the other end ("to Denver, Seattle volume");
//! - a value repeated keeps the one role its marked mentions give it;
//! - nothing else gives a role: two values with no cue ("Seattle and Denver") have none.
//!
//! "to" is a goal only as a preposition: after a word that governs an infinitive ("want to",
//! "need to", "how to") or a comparison ("compared to", "relative to", "similar to", and
//! "compare X to Y") it marks no end. A cue must touch its value (a determiner aside), so "want
//! to see Denver" leaves Denver unmarked: the safer reading, since a wrong role binds the wrong
//! end while a missing one asks the user.
//!
//! Only kinds whose values can be ends get roles ([`planner_registry::Role::suits`]). The pass
//! is pure and total: it reads ASCII words backwards from each value and stops at the first
//! character that is not a letter, a blank or a colon, so its cost is a few words per value.

use std::collections::BTreeMap;

use planner_registry::{ParamKind, Registry, Role, Value};

use crate::extraction::{Extraction, Mention};

/// The kinds a registry gives roles: an [`crate::Extractor`] keeps the roles of those kinds'
/// mentions only, so a registry without roles extracts exactly as before.
#[derive(Debug, Default)]
pub(crate) struct RoleKinds(Vec<ParamKind>);

impl RoleKinds {
    pub(crate) fn new(registry: &Registry) -> RoleKinds {
        let mut kinds: Vec<ParamKind> =
            registry.params().iter().filter(|p| p.role.is_some()).map(|p| p.kind).collect();
        kinds.sort();
        kinds.dedup();
        RoleKinds(kinds)
    }

    /// Reads the roles of the mentions of the kinds the registry gives roles (none, without
    /// reading, when it gives no kind a role).
    pub(crate) fn assign(&self, question: &str, mentions: &mut [Mention]) {
        if !self.0.is_empty() {
            assign(question, mentions);
        }
        self.keep(mentions);
    }

    /// Clears the roles of mentions of kinds the registry gives none.
    pub(crate) fn keep(&self, mentions: &mut [Mention]) {
        for mention in mentions.iter_mut().filter(|m| m.role.is_some()) {
            if !self.0.contains(&mention.kind) {
                mention.role = None;
            }
        }
    }
}

impl Extraction {
    /// The values told apart by role, by kind and role: for each kind and role, the one value
    /// the question gives that end (a role given two values is told nothing). What params with
    /// a role bind, beside [`Extraction::available`].
    pub fn roles(&self) -> BTreeMap<(ParamKind, Role), Value> {
        let mut out: BTreeMap<(ParamKind, Role), Value> = BTreeMap::new();
        let mut unclear: Vec<(ParamKind, Role)> = Vec::new();
        for mention in &self.params {
            let Some(role) = mention.role else { continue };
            let key = (mention.kind, role);
            match out.get(&key) {
                None if !unclear.contains(&key) => {
                    out.insert(key, mention.value.clone());
                }
                Some(value) if *value != mention.value => {
                    out.remove(&key);
                    unclear.push(key);
                }
                _ => {}
            }
        }
        out
    }
}

/// What the words right before a value say about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cue {
    /// A source or goal preposition.
    Role(Role),
    /// "between": the first of a pair joined by "and".
    Between,
}

/// Sets the role of every mention from the question's words. `mentions` are in order of
/// position; any role they carried is replaced.
pub(crate) fn assign(question: &str, mentions: &mut [Mention]) {
    let mut cues: Vec<Option<Cue>> = Vec::with_capacity(mentions.len());
    let mut prev_end = 0;
    let mut prev_gap = "";
    for mention in mentions.iter_mut() {
        mention.role = None;
        let gap = question.get(prev_end..mention.span.start).unwrap_or("");
        prev_end = prev_end.max(mention.span.end);
        let cue = if Role::suits(mention.kind) {
            cue_before(gap, first_word(last_words(prev_gap).as_slice()))
        } else {
            None
        };
        cues.push(cue);
        prev_gap = gap;
    }
    for (mention, cue) in mentions.iter_mut().zip(&cues) {
        if let Some(Cue::Role(role)) = cue {
            mention.role = Some(*role);
        }
    }
    // The patterns between neighbours of one kind.
    for index in 1..mentions.len() {
        let (a, b) = (&mentions[index - 1], &mentions[index]);
        if a.kind != b.kind || !Role::suits(a.kind) || a.value == b.value {
            continue;
        }
        let between = question.get(a.span.end..b.span.start).unwrap_or("").trim();
        let pair = match (cues[index - 1], a.role, b.role) {
            (Some(Cue::Between), None, None) => is_and(between),
            (_, None, None) => is_arrow(between),
            // "X to Y": the goal cue is all that stands between them ("compare X to Y" was
            // not read as a goal).
            (_, None, Some(Role::To)) => is_goal_phrase(between),
            _ => false,
        };
        if pair {
            mentions[index - 1].role = Some(Role::From);
            mentions[index].role = Some(Role::To);
        }
    }
    complete(mentions);
}

/// The last word of a gap that is not a determiner ("compare the" gives "compare").
fn first_word<'a>(words: &[&'a str]) -> &'a str {
    words.iter().copied().find(|w| !is_determiner(w)).unwrap_or("")
}

/// A goal cue alone, determiners aside ("to", "to the", "bound for").
fn is_goal_phrase(text: &str) -> bool {
    const PHRASES: &[&[&str]] = &[
        &["to"],
        &["into"],
        &["towards"],
        &["toward"],
        &["arriving", "at"],
        &["arriving", "in"],
        &["bound", "for"],
    ];
    let mut words = text.split_whitespace().filter(|w| !is_determiner(w));
    let mut got: [&str; 3] = [""; 3];
    for slot in &mut got {
        *slot = words.next().unwrap_or("");
    }
    PHRASES.iter().any(|phrase| {
        got.iter().enumerate().all(|(i, w)| match phrase.get(i) {
            Some(p) => w.eq_ignore_ascii_case(p),
            None => w.is_empty(),
        })
    })
}

/// Values: a repeated value takes the one role its marked mentions agree on; then, per kind,
/// one marked end and one other unmarked value make that value the other end.
fn complete(mentions: &mut [Mention]) {
    for index in 0..mentions.len() {
        if mentions[index].role.is_some() || !Role::suits(mentions[index].kind) {
            continue;
        }
        let roles = roles_of(mentions, &mentions[index].kind, &mentions[index].value);
        if let [role] = roles.as_slice() {
            mentions[index].role = Some(*role);
        }
    }
    for index in 0..mentions.len() {
        let kind = mentions[index].kind;
        // Each kind once: at its first mention.
        if !Role::suits(kind) || mentions[..index].iter().any(|m| m.kind == kind) {
            continue;
        }
        let mut marked: Vec<(&Value, Role)> = Vec::new();
        let mut unmarked: Vec<&Value> = Vec::new();
        for mention in mentions.iter().filter(|m| m.kind == kind) {
            match mention.role {
                Some(role) if !marked.contains(&(&mention.value, role)) => {
                    marked.push((&mention.value, role));
                }
                Some(_) => {}
                None if !unmarked.contains(&&mention.value) => unmarked.push(&mention.value),
                None => {}
            }
        }
        let ([(_, role)], [value]) = (marked.as_slice(), unmarked.as_slice()) else { continue };
        let (role, value) = (role.other(), (*value).clone());
        for mention in mentions.iter_mut().filter(|m| m.kind == kind && m.value == value) {
            mention.role = Some(role);
        }
    }
}

/// The distinct roles the mentions of one value carry.
fn roles_of(mentions: &[Mention], kind: &ParamKind, value: &Value) -> Vec<Role> {
    let mut roles = Vec::new();
    for mention in mentions.iter().filter(|m| m.kind == *kind && m.value == *value) {
        if let Some(role) = mention.role
            && !roles.contains(&role)
        {
            roles.push(role);
        }
    }
    roles
}

/// The cue the end of `gap` (the text between the previous value and this one) gives.
/// `before_previous` is the word before the previous value, for "compare X to Y".
fn cue_before(gap: &str, before_previous: &str) -> Option<Cue> {
    let words = last_words(gap);
    let mut at = 0;
    while words.get(at).is_some_and(|w| is_determiner(w)) {
        at += 1;
    }
    let word = |i: usize| words.get(at + i).copied().unwrap_or("");
    let is = |i: usize, text: &str| word(i).eq_ignore_ascii_case(text);
    // Source words: "from", "leaving", "departing", "origin", "out of", "originating in/at".
    let source = is(0, "from")
        || is(0, "leaving")
        || is(0, "departing")
        || is(0, "origin")
        || (is(0, "of") && is(1, "out"))
        || ((is(0, "in") || is(0, "at")) && is(1, "originating"));
    // Goal words but "to": "into", "towards", "destination", "arriving at/in", "bound for".
    let goal = is(0, "into")
        || is(0, "towards")
        || is(0, "toward")
        || is(0, "destination")
        || ((is(0, "at") || is(0, "in")) && is(1, "arriving"))
        || (is(0, "for") && is(1, "bound"));
    let cue = if source {
        Cue::Role(Role::From)
    } else if goal {
        Cue::Role(Role::To)
    } else if is(0, "to") {
        let before = if word(1).is_empty() { before_previous } else { word(1) };
        if not_a_goal_before_to(before) {
            return None;
        }
        Cue::Role(Role::To)
    } else if is(0, "between") {
        Cue::Between
    } else {
        return None;
    };
    Some(cue)
}

/// Up to four ASCII words at the end of `gap`, last first, read backwards over letters,
/// apostrophes, blanks and colons only: any other character ends the reading (a comma, a
/// digit, another script), so a cue must touch its value.
fn last_words(gap: &str) -> Words<'_> {
    let bytes = gap.as_bytes();
    let mut words = Words::default();
    let mut i = bytes.len();
    let is_letter = |b: u8| b.is_ascii_alphabetic() || b == b'\'';
    while i > 0 && words.len < words.items.len() {
        let b = bytes[i - 1];
        if is_letter(b) {
            let end = i;
            while i > 0 && is_letter(bytes[i - 1]) {
                i -= 1;
            }
            // A word glued to a character of another script is not an English word.
            if i > 0 && !bytes[i - 1].is_ascii() {
                break;
            }
            // Both ends sit next to ASCII bytes, so they are char boundaries.
            if let Some(word) = gap.get(i..end) {
                words.items[words.len] = word;
                words.len += 1;
            }
        } else if matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b':') {
            i -= 1;
        } else {
            break;
        }
    }
    words
}

/// Up to four words, last first, without allocating.
#[derive(Default)]
struct Words<'a> {
    items: [&'a str; 4],
    len: usize,
}

impl<'a> Words<'a> {
    fn get(&self, at: usize) -> Option<&&'a str> {
        self.items[..self.len].get(at)
    }

    fn as_slice(&self) -> &[&'a str] {
        &self.items[..self.len]
    }
}

fn is_determiner(word: &str) -> bool {
    ["the", "a", "an", "our", "my", "your", "their"].iter().any(|d| word.eq_ignore_ascii_case(d))
}

/// Words after which "to" is an infinitive marker or part of a comparison, not a goal.
fn not_a_goal_before_to(word: &str) -> bool {
    const WORDS: &[&str] = &[
        "want",
        "wants",
        "wanted",
        "need",
        "needs",
        "needed",
        "like",
        "love",
        "going",
        "have",
        "has",
        "had",
        "able",
        "how",
        "try",
        "trying",
        "plan",
        "planning",
        "ought",
        "used",
        "compare",
        "compared",
        "comparing",
        "comparison",
        "relative",
        "similar",
        "next",
        "close",
        "closer",
        "due",
        "according",
        "equal",
        "prior",
        "related",
        "versus",
        "vs",
        "opposed",
        "contrast",
    ];
    WORDS.iter().any(|w| word.eq_ignore_ascii_case(w))
}

/// "and" or "&", after at most one word (the kind's noun: "between the Reno hub and Boise"),
/// determiners aside.
fn is_and(text: &str) -> bool {
    let words: Vec<&str> = text.split_whitespace().filter(|w| !is_determiner(w)).collect();
    let and = |w: &&str| w.eq_ignore_ascii_case("and") || *w == "&";
    match words.as_slice() {
        [last] | [_, last] => and(last),
        _ => false,
    }
}

/// A hyphen, an en dash or an arrow alone.
fn is_arrow(text: &str) -> bool {
    matches!(text, "-" | "\u{2013}" | "\u{2192}" | "->" | ">" | "=>")
}
