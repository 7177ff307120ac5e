//! Reading a question into asks: [`LexicalProposer::segments`].
//!
//! A question is split into segments at connectives and punctuation (the [`Lexicon`]'s marks);
//! each holds the term columns it says. Principles: a framing phrase ("For the Army recompete
//! under 541512, ...") or a modifier ("by availability") is context, not an ask, when the
//! question has other asks; time words inside a time value ("the past month") say the window,
//! not what to compute; a word inside a value the extractors read is that value, never a word
//! the registry lacks; a dictionary's label head right after its value is part of it ("the
//! Northwest region"). An ask whose only known terms say a quantity beside an unknown word asks
//! about that unknown thing; an unknown word then a preposition before the known terms asks for
//! a measure the registry does not know of a thing it knows ("average delivery time for online
//! orders"). An ask naming a thing no intent returns ([`asked`]) is an ask for something else:
//! the first makes the whole question one, a later one is only not heard.
//!
//! [`Lexicon`]: super::lexicon::Lexicon

use super::lexicon;
use super::{Asks, LexicalProposer, Masks, Range, Segment, asked, inside};

impl LexicalProposer {
    /// The question's segments, as term columns; whether it says a word the registry does not
    /// or asks for something else entirely; and whether it asks for something else entirely.
    pub(super) fn segments(&self, question: &str, masks: &Masks) -> (Asks, bool, bool) {
        let (mut segments, unheard) = self.split(question, masks);
        let count = segments.len();
        for (position, segment) in segments.iter_mut().enumerate() {
            segment.context = segment.opens_with_modifier
                || (segment.opens_with_frame && segment.closed_by_stop && position + 1 < count);
            if segment.unknown && segment.columns.iter().all(|&c| self.quantity[c]) {
                segment.columns.clear();
            }
            segment.measured = measured(question, segment);
            self.drop_pointed(segment);
        }
        self.mark_elsewhere(question, &mut segments, &unheard);
        // The question's first ask asking for a thing no intent returns asks for something else
        // entirely; a later one is only not heard, and is named as unanswered.
        let foreign = segments.iter().any(|segment| segment.foreign)
            || segments.first().is_some_and(|segment| segment.elsewhere);
        let unknown = foreign || segments.iter().any(|segment| segment.unknown);
        let elsewhere: Vec<Range> = segments
            .iter()
            .filter(|segment| segment.elsewhere)
            .map(|segment| (segment.start, segment.end))
            .collect();
        segments.retain(|segment| {
            !segment.columns.is_empty() && !segment.foreign && !segment.elsewhere
        });
        (Asks { segments, elsewhere }, unknown, foreign)
    }

    /// Drops the columns of `segment` said as a kind's label pointed back at ("the price at its
    /// warehouse"): the value an edge hands over, not a thing asked for; unless an intent has
    /// the label among its strong terms beside another of the ask ("the trucks at its yard"
    /// asks for the yard's trucks), or the label is all the ask says.
    fn drop_pointed(&self, segment: &mut Segment) {
        let pointed = std::mem::take(&mut segment.pointed);
        let columns = &segment.columns;
        let asked = |label: usize| {
            self.intents.iter().any(|intent| {
                intent.strong[label]
                    && columns.iter().any(|&other| other != label && intent.strong[other])
            })
        };
        let dropped: Vec<usize> = pointed.into_iter().filter(|&label| !asked(label)).collect();
        // A label that is all the ask says is what it asks about.
        if columns.iter().all(|column| dropped.contains(column)) {
            return;
        }
        segment.columns.retain(|column| !dropped.contains(column));
    }

    /// The segments by the lexicon's marks, and where each word the registry does not know
    /// starts (not a word of its things).
    fn split(&self, question: &str, masks: &Masks) -> (Vec<Segment>, Vec<usize>) {
        let mut segments = vec![Segment { end: question.len(), ..Segment::default() }];
        let mut unheard: Vec<usize> = Vec::new();
        let mut opened = false;
        self.lexicon.terms_at(question, &masks.masked, &masks.protected, |term, at| {
            let Some(current) = segments.last_mut() else { return };
            if !opened {
                current.start = at;
                opened = true;
            }
            match term.as_ref() {
                lexicon::SPLIT | lexicon::STOP => {
                    current.closed_by_stop = term == lexicon::STOP;
                    if !current.columns.is_empty()
                        || current.opens_with_frame
                        || current.opens_with_modifier
                    {
                        current.end = at;
                        segments.push(Segment { end: question.len(), ..Segment::default() });
                    }
                    opened = false;
                }
                lexicon::FRAME => current.opens_with_frame = current.columns.is_empty(),
                lexicon::MODIFIER => current.opens_with_modifier = current.columns.is_empty(),
                lexicon::FOREIGN => current.foreign = true,
                _ if self.labels_value(question, masks, &term, at) => {}
                _ => match self.terms.get(term.as_ref()) {
                    Some(&column) => {
                        if self.points_at_value(question, masks, &term, at) {
                            current.pointed.push(column);
                        }
                        current.first_known.get_or_insert(at);
                        // Inside a time value a time word says the window.
                        if !current.columns.contains(&column)
                            && (!inside(&masks.times, at) || !lexicon::is_time_word(&term))
                        {
                            current.columns.push(column);
                        }
                    }
                    None => self.hear_unknown(question, masks, current, &term, at, &mut unheard),
                },
            }
        });
        (segments, unheard)
    }

    /// A term no intent has, said at byte `at`: unless it is inside a value or a kind's word,
    /// it is a word the registry does not know, which may say that the ask is for staff or an
    /// outside party (right after "which").
    fn hear_unknown(
        &self,
        question: &str,
        masks: &Masks,
        current: &mut Segment,
        term: &str,
        at: usize,
        unheard: &mut Vec<usize>,
    ) {
        let unknown = !inside(&masks.protected, at) && !self.kind_words.contains(term);
        if unknown {
            let asked = question.get(..at).is_some_and(|before| {
                before
                    .split(|c: char| !c.is_alphanumeric())
                    .rfind(|word| !word.is_empty())
                    .is_some_and(|word| word.eq_ignore_ascii_case("which"))
            });
            current.asks_staff |= asked && self.staff.iter().any(|it| it == term);
            current.asks_outsider |= asked && self.outsiders.iter().any(|it| it == term);
            let value_word = self.value_words.binary_search_by(|w| w.as_str().cmp(term)).is_ok();
            if current.first_known.is_none() && !value_word {
                current.last_unknown = Some(at);
            }
        }
        // A word of the registry's things ("tumblers" of a product's title) names one of them.
        if unknown && !self.thing_word(question, at) {
            unheard.push(at);
        }
        current.unknown |= unknown;
    }

    /// Marks the asks for a thing no intent returns, each read from where the one before it
    /// ends (its opening words are its own).
    fn mark_elsewhere(&self, question: &str, segments: &mut [Segment], unheard: &[usize]) {
        let mut from = 0;
        for segment in segments {
            if segment.unknown {
                let decided = segment.columns.iter().any(|&column| self.decisive[column]);
                match asked::names_unknown_thing(question, from, segment.end, |at| {
                    unheard.contains(&at)
                }) {
                    Some(asked::Unknown::Thing) => segment.elsewhere = true,
                    Some(asked::Unknown::Head) => segment.elsewhere = !decided,
                    None => {}
                }
            }
            from = segment.end;
        }
    }
}

/// Whether `segment` asks for a measure the registry does not know of a thing it knows: its
/// last unknown word before its first known term, then a preposition between them.
fn measured(question: &str, segment: &Segment) -> bool {
    let (Some(unknown), Some(known)) = (segment.last_unknown, segment.first_known) else {
        return false;
    };
    question.get(unknown..known).is_some_and(|between| {
        between.split(|c: char| !c.is_alphanumeric()).any(|word| {
            ["for", "of", "per", "by", "on"]
                .iter()
                .any(|preposition| word.eq_ignore_ascii_case(preposition))
        })
    })
}
