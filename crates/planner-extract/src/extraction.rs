//! The entry point and its result: found params, ambiguity and diagnostics.

use std::collections::{BTreeMap, BTreeSet};

use planner_registry::{ParamKind, Role, Value};

use crate::mention::{Diagnostic, Mention, Span};
use crate::scan::{Hit, Scan};
use crate::token::{DIGITS, HAS_DIGIT};
use crate::vocab::NO_WORD;
use crate::{agency, clearance, months, naics, uei, uuid};

#[cfg(test)]
mod tests;

/// Everything the extractors found in one question.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Extraction {
    /// Every param found, in order of position (ambiguous ones included).
    pub params: Vec<Mention>,
    /// Kinds written with two or more different values: not available.
    pub ambiguous: BTreeSet<ParamKind>,
    /// Of the ambiguous kinds, those one word names several values of (an alias values share,
    /// "Denver" for two branches): the user must say which, even where the value is optional.
    pub unsure: BTreeSet<ParamKind>,
    /// Problems noticed, in order of position.
    pub diagnostics: Vec<Diagnostic>,
}

impl Extraction {
    /// The params a plan may bind: one canonical value per kind, ambiguous kinds left out.
    pub fn available(&self) -> BTreeMap<ParamKind, Value> {
        let mut out = BTreeMap::new();
        for mention in &self.params {
            if !self.ambiguous.contains(&mention.kind) {
                out.entry(mention.kind).or_insert_with(|| mention.value.clone());
            }
        }
        out
    }

    /// The available value of one kind.
    pub fn value(&self, kind: ParamKind) -> Option<&Value> {
        if self.ambiguous.contains(&kind) {
            return None;
        }
        self.params.iter().find(|m| m.kind == kind).map(|m| &m.value)
    }

    /// Whether `kind` was written with two or more different values.
    pub fn is_ambiguous(&self, kind: ParamKind) -> bool {
        self.ambiguous.contains(&kind)
    }

    /// Every mention of one kind, in order of position.
    pub fn mentions(&self, kind: ParamKind) -> impl Iterator<Item = &Mention> {
        self.params.iter().filter(move |m| m.kind == kind)
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

/// Runs every extractor over `question`. Pure, deterministic, and total: no input panics.
///
/// No two params share a byte: identifiers (UUIDs, then UEIs) are claimed first, then the rest
/// of the text is read left to right, taking at each word the longest phrase any extractor
/// recognises there (ties go to agency, then clearance, then months, then NAICS).
pub fn extract(question: &str) -> Extraction {
    let mut scan = Scan::new(question);
    let mut out = Extraction { params: Vec::with_capacity(8), ..Extraction::default() };
    let mut take = |hit: Hit| {
        let [first, second] = hit.mentions;
        out.params.extend(first);
        out.params.extend(second);
        if !hit.diagnostics.is_empty() {
            out.diagnostics.extend(hit.diagnostics);
        }
    };
    let mut ids = Vec::new();
    uuid::claim(&mut scan, &mut ids);
    uei::claim(&mut scan, &mut ids);
    ids.into_iter().for_each(&mut take);
    let mut i = 0;
    while i < scan.len() {
        // Only an unclaimed vocabulary word or token with a digit can start a param, and each
        // matcher only at the words it starts with: the others are not asked.
        let Some(tok) = scan.tok(i).filter(|t| t.id != NO_WORD || t.is(HAS_DIGIT)) else {
            i += 1;
            continue;
        };
        let kw = tok.kw();
        let mut best: Option<Hit> =
            if agency::can_start(tok) { agency::at(&scan, i) } else { None };
        let mut consider = |hit: Option<Hit>| {
            if let Some(hit) = hit
                && best.as_ref().is_none_or(|b| hit.end > b.end)
            {
                best = Some(hit);
            }
        };
        if kw.is_some_and(clearance::can_start) {
            consider(clearance::at(&scan, i));
        }
        if months::can_start(tok, kw) {
            consider(months::at(&scan, i));
        }
        if tok.is(DIGITS) {
            consider(naics::at(&scan, i));
        }
        match best {
            Some(hit) => {
                i = hit.end.max(i + 1);
                take(hit);
            }
            None => i += 1,
        }
    }
    // Identifiers come first and the rest left to right: usually already in order.
    if !out.params.is_sorted_by_key(|m| (m.span, m.kind)) {
        out.params.sort_by_key(|m| (m.span, m.kind));
    }
    if !out.diagnostics.is_sorted_by_key(|d| d.span) {
        out.diagnostics.sort_by_key(|d| d.span);
    }
    crate::roles::assign(question, &mut out.params);
    let mut first: [Option<&Value>; ParamKind::BUILTIN.len()] = [None; ParamKind::BUILTIN.len()];
    let mut ambiguous = [false; ParamKind::BUILTIN.len()];
    for mention in &out.params {
        let Some(index) = mention.kind.builtin_index() else { continue };
        let Some(slot) = first.get_mut(index) else { continue };
        match slot {
            None => *slot = Some(&mention.value),
            Some(seen) if **seen != mention.value => ambiguous[index] = true,
            Some(_) => {}
        }
    }
    out.ambiguous = ParamKind::BUILTIN
        .into_iter()
        .filter(|&kind| kind.builtin_index().is_some_and(|at| ambiguous[at]))
        .collect();
    out
}

/// The extractors of one registry: the built-in kinds it uses and the kinds it declares.
///
/// A registry without `[kinds]` extracts exactly as [`extract`] does. With declared kinds, the
/// built-in extractors run first only when a param uses a built-in kind the registry does not
/// declare (their mentions of other kinds are dropped and claim nothing), then the declared
/// matchers, a built-in kind's declaration among them, read the words the built-in ones left.
#[derive(Debug, Default)]
pub struct Extractor {
    builtin: Option<BTreeSet<ParamKind>>,
    pub(crate) declared: crate::declared::Declared,
    roles: crate::roles::RoleKinds,
    /// The last word of each declared kind's label, lower case, sorted ("vendor", "depot").
    nouns: Vec<String>,
    /// Each alias several values of a dictionary share: its kind, its words and the values,
    /// in the kind's order.
    shared: Vec<(ParamKind, Vec<String>, Vec<String>)>,
    /// The words in brackets of each code's title that has them ("6 cup" of "Espresso Maker (6
    /// cup)"): its kind, the code and the words.
    qualifiers: Vec<(ParamKind, String, Vec<String>)>,
    /// Each declared list kind with its values in declared order.
    lists: Vec<(ParamKind, Vec<String>)>,
}

impl Extractor {
    /// Compiles the extractors of `registry`'s kinds.
    pub fn new(registry: &planner_registry::Registry) -> Extractor {
        let declared = crate::declared::Declared::new(registry.kinds());
        let builtin = if declared.is_empty() {
            None
        } else {
            Some(
                registry
                    .params()
                    .iter()
                    .map(|p| p.kind)
                    .filter(|&k| k.builtin_index().is_some() && registry.kind_spec(k).is_none())
                    .collect(),
            )
        };
        let mut nouns: Vec<String> = registry
            .kinds()
            .iter()
            .filter_map(|kind| kind.label.split_whitespace().next_back())
            .map(str::to_lowercase)
            .collect();
        nouns.sort_unstable();
        nouns.dedup();
        let mut shared: Vec<(ParamKind, Vec<String>, Vec<String>)> = Vec::new();
        let mut qualifiers = Vec::new();
        let mut lists = Vec::new();
        for kind in registry.kinds() {
            if let planner_registry::KindBody::List { entries, .. } = &kind.body {
                lists.push((kind.kind, entries.iter().map(|entry| entry.value.clone()).collect()));
            }
            // A title several codes share (one book in print and as an e-book) names each of
            // them, as an alias several values share does.
            if let planner_registry::KindBody::Code { codes, .. } = &kind.body {
                for (code, title) in codes {
                    let words = planner_registry::alias_words(&crate::declared::brackets(title).1);
                    if !words.is_empty() {
                        qualifiers.push((kind.kind, code.clone(), words));
                    }
                }
                for entry in crate::declared::titled_codes(codes) {
                    for words in entry.aliases.iter().map(|alias| &alias.words) {
                        match shared.iter_mut().find(|(k, w, _)| *k == kind.kind && w == words) {
                            Some((_, _, values)) => values.push(entry.value.clone()),
                            None => {
                                shared.push((kind.kind, words.clone(), vec![entry.value.clone()]))
                            }
                        }
                    }
                }
                continue;
            }
            let planner_registry::KindBody::Dictionary { entries, .. } = &kind.body else {
                continue;
            };
            for entry in entries {
                for words in &entry.shared {
                    match shared.iter_mut().find(|(k, w, _)| *k == kind.kind && w == words) {
                        Some((_, _, values)) => values.push(entry.value.clone()),
                        None => shared.push((kind.kind, words.clone(), vec![entry.value.clone()])),
                    }
                }
            }
        }
        shared.retain(|(_, _, values)| values.len() > 1);
        Extractor {
            builtin,
            declared,
            roles: crate::roles::RoleKinds::new(registry),
            nouns,
            shared,
            qualifiers,
            lists,
        }
    }

    /// A mention whose words are an alias several values share stands for each of them: the
    /// others are added at the same span and the kind is unsure. Of codes sharing a title, those
    /// whose qualifier the question says ("the 6 cup 'Espresso Maker'") are the ones meant.
    fn share(&self, question: &str, from: usize, out: &mut Extraction) {
        if self.shared.is_empty() {
            return;
        }
        // The question's words, read only when a shared title has a qualifier to look for.
        let said = std::cell::OnceCell::new();
        let qualified = |kind: ParamKind, code: &str| {
            self.qualifiers.iter().any(|(k, c, words)| {
                *k == kind
                    && c == code
                    && words.iter().all(|word| {
                        said.get_or_init(|| planner_registry::alias_words(question)).contains(word)
                    })
            })
        };
        let mut more = Vec::new();
        for mention in out.params.get_mut(from..).unwrap_or(&mut []) {
            let text = question.get(mention.span.start..mention.span.end).unwrap_or("");
            let words = planner_registry::alias_words(text);
            let Some((_, _, values)) = self
                .shared
                .iter()
                .find(|(kind, alias, _)| *kind == mention.kind && *alias == words)
            else {
                continue;
            };
            if !matches!(&mention.value, Value::Text(value) if values.contains(value)) {
                continue;
            }
            let chosen: Vec<&String> =
                values.iter().filter(|v| qualified(mention.kind, v)).collect();
            let values: Vec<&String> =
                if chosen.is_empty() { values.iter().collect() } else { chosen };
            let Some((first, rest)) = values.split_first() else { continue };
            mention.value = Value::Text((*first).clone());
            if !rest.is_empty() {
                out.unsure.insert(mention.kind);
            }
            for value in rest {
                more.push(Mention { value: Value::Text((*value).clone()), ..mention.clone() });
            }
        }
        out.params.extend(more);
    }

    /// A list kind's values said in several places of one question are one list, in the kind's
    /// order ("wholesale orders last month, then the same via web"): a list gathers values, so
    /// two of its mentions are not two readings of one value, as two regions would be.
    fn gather_lists(&self, mentions: &mut [Mention]) {
        for (kind, order) in &self.lists {
            let mut said: Vec<&str> = Vec::new();
            let mut count = 0;
            for mention in mentions.iter().filter(|m| m.kind == *kind) {
                count += 1;
                if let Value::List(values) = &mention.value {
                    said.extend(values.iter().map(String::as_str));
                }
            }
            if count < 2 {
                continue;
            }
            let gathered: Vec<String> =
                order.iter().filter(|value| said.contains(&value.as_str())).cloned().collect();
            for mention in mentions.iter_mut().filter(|m| m.kind == *kind) {
                mention.value = Value::List(gathered.clone());
            }
        }
    }

    /// The nouns the registry's declared kinds are called by (the last word of each label, lower
    /// case, sorted): what "that vendor" or "this depot" points back at.
    pub fn kind_nouns(&self) -> &[String] {
        &self.nouns
    }

    /// Runs the registry's extractors over `question`. Pure, deterministic and total.
    pub fn extract(&self, question: &str) -> Extraction {
        let Some(builtin) = &self.builtin else {
            let mut out = extract(question);
            self.roles.keep(&mut out.params);
            return out;
        };
        let mut out = if builtin.is_empty() {
            Extraction::default()
        } else {
            let mut found = extract(question);
            found.params.retain(|m| builtin.contains(&m.kind));
            found.ambiguous.retain(|k| builtin.contains(k));
            found
        };
        let taken: Vec<Span> = out.params.iter().map(|m| m.span).collect();
        let builtin_params = out.params.len();
        out.params.reserve(16);
        self.declared.extract(question, &taken, &mut out.params, &mut out.diagnostics);
        self.share(question, builtin_params, &mut out);
        self.gather_lists(&mut out.params[builtin_params..]);
        let declared = &out.params[builtin_params..];
        for mention in declared {
            let first = declared.iter().find(|m| m.kind == mention.kind);
            if first.is_some_and(|f| !std::ptr::eq(f, mention) && f.value != mention.value) {
                out.ambiguous.insert(mention.kind);
            }
        }
        if !out.params.is_sorted_by_key(|m| (m.span, m.kind)) {
            out.params.sort_by_key(|m| (m.span, m.kind));
        }
        if !out.diagnostics.is_sorted_by_key(|d| d.span) {
            out.diagnostics.sort_by_key(|d| d.span);
        }
        self.roles.assign(question, &mut out.params);
        out
    }
}
