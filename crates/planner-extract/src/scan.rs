//! The shared view the matchers read: tokens, the gaps between them, and claimed tokens.

use planner_registry::{ParamKind, Value};

use crate::extraction::{Diagnostic, Mention, Problem, Span};
use crate::token::{self, CLAIMED, Tok};
use crate::vocab::Kw;

/// The tokens of one question and which of them an identifier already owns.
#[derive(Debug)]
pub(crate) struct Scan<'a> {
    text: &'a str,
    toks: Vec<Tok>,
}

/// What one matcher recognised starting at a token.
#[derive(Debug)]
pub(crate) struct Hit {
    /// One past the last token the hit consumes.
    pub(crate) end: usize,
    /// The params found (possibly none, when only a diagnostic was worth reporting): a
    /// clearance and its compartments at most, kept inline to spare an allocation per hit.
    pub(crate) mentions: [Option<Mention>; 2],
    /// Problems noticed.
    pub(crate) diagnostics: Vec<Diagnostic>,
}

impl Hit {
    /// A hit that found one param.
    pub(crate) fn one(end: usize, kind: ParamKind, value: Value, span: Span) -> Hit {
        Hit {
            end,
            mentions: [Some(Mention { kind, value, span, role: None }), None],
            diagnostics: Vec::new(),
        }
    }

    /// A hit that only reports a problem.
    pub(crate) fn problem(end: usize, span: Span, problem: Problem) -> Hit {
        Hit { end, mentions: [None, None], diagnostics: vec![Diagnostic { span, problem }] }
    }

    /// Adds a param to the first free slot (a hit holds two at most).
    pub(crate) fn push(&mut self, mention: Mention) {
        if let Some(slot) = self.mentions.iter_mut().find(|m| m.is_none()) {
            *slot = Some(mention);
        }
    }
}

impl<'a> Scan<'a> {
    /// Tokenizes `text`.
    pub(crate) fn new(text: &'a str) -> Scan<'a> {
        Scan { text, toks: token::tokenize(text) }
    }

    /// Number of tokens.
    pub(crate) fn len(&self) -> usize {
        self.toks.len()
    }

    /// Token `j`, claimed or not.
    pub(crate) fn raw(&self, j: usize) -> Option<&Tok> {
        self.toks.get(j)
    }

    /// Token `j` if it exists and no identifier owns it.
    pub(crate) fn tok(&self, j: usize) -> Option<&Tok> {
        self.toks.get(j).filter(|t| !t.is(CLAIMED))
    }

    /// The keyword of unclaimed token `j`.
    pub(crate) fn kw(&self, j: usize) -> Option<Kw> {
        self.tok(j).and_then(Tok::kw)
    }

    /// Marks tokens `from..to` as owned.
    pub(crate) fn claim(&mut self, from: usize, to: usize) {
        for tok in self.toks.iter_mut().take(to).skip(from) {
            tok.shape |= CLAIMED;
        }
    }

    /// The text of token `j`.
    pub(crate) fn word(&self, j: usize) -> &'a str {
        self.toks.get(j).map_or("", |t| &self.text[t.start..t.end])
    }

    /// The text between token `j - 1` (or the start) and token `j` (or the end).
    pub(crate) fn gap_before(&self, j: usize) -> &'a str {
        let start =
            if j == 0 { 0 } else { self.toks.get(j - 1).map_or(self.text.len(), |t| t.end) };
        let end = self.toks.get(j).map_or(self.text.len(), |t| t.start);
        self.text.get(start..end).unwrap_or("")
    }

    /// The text between token `j` and token `j + 1` (or the end).
    pub(crate) fn gap_after(&self, j: usize) -> &'a str {
        self.gap_before(j + 1)
    }

    /// The span from the start of token `from` to the end of token `to` (inclusive).
    pub(crate) fn span(&self, from: usize, to: usize) -> Span {
        let start = self.toks.get(from).map_or(0, |t| t.start);
        let end = self.toks.get(to).map_or(start, |t| t.end);
        Span { start, end }
    }

    /// The whole text.
    pub(crate) fn text(&self) -> &'a str {
        self.text
    }
}

/// Whether a gap between two words of one phrase is only blanks and light punctuation.
pub(crate) fn is_phrase_gap(gap: &str) -> bool {
    gap.len() <= 6
        && gap.chars().all(|c| c.is_whitespace() || matches!(c, '.' | '-' | '\'' | '’' | '_'))
}

/// Whether a gap is only blanks (at least one), or a single hyphen with optional blanks.
pub(crate) fn is_blank_or_hyphen(gap: &str) -> bool {
    !gap.is_empty()
        && gap.len() <= 4
        && gap.chars().all(|c| c.is_whitespace() || c == '-')
        && gap.chars().filter(|&c| c == '-').count() <= 1
}
