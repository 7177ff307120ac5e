//! The design's writing rule for narrated prose: no dash punctuation. An em dash, an en dash (or
//! another dash character), a hyphen standing alone between spaces or opening a line (` - `),
//! and a double hyphen used as a dash (`word--word`) are dashes; a hyphen inside a word,
//! identifier, date or code (`TS-SCI`, `2026-09-30`, `W91QUZ-20-D-0012`), a minus sign before a
//! number and a command-line flag (`--narrator`) are not, and URLs and `code spans` are skipped.

use std::ops::Range;

/// Dash characters other than the hyphen-minus: figure dash, en dash, em dash, horizontal bar,
/// two-em and three-em dashes, small em dash.
fn is_dash_char(ch: char) -> bool {
    matches!(ch, '\u{2012}'..='\u{2015}' | '\u{2E3A}' | '\u{2E3B}' | '\u{FE58}')
}

/// The byte ranges of the dash punctuation in `text`, in order (see the module docs).
pub fn find_dashes(text: &str) -> Vec<Range<usize>> {
    let mut found = Vec::new();
    // Nothing to look at in the common case: no hyphen, no multi-byte character.
    if !text.bytes().any(|byte| byte == b'-' || byte >= 0xE2) {
        return found;
    }
    let mut chars = text.char_indices().peekable();
    let mut previous: Option<char> = None;
    let mut in_code = false;
    while let Some((at, ch)) = chars.next() {
        if ch == '`' || in_code {
            in_code ^= ch == '`';
        } else if (ch == 'h' || ch == 'H')
            && previous.is_none_or(|it| !it.is_alphanumeric())
            && starts_url(&text[at..])
        {
            // A URL runs to the next whitespace.
            while chars.next_if(|(_, next)| !next.is_whitespace()).is_some() {}
            previous = Some('/');
            continue;
        } else if is_dash_char(ch) {
            found.push(at..at + ch.len_utf8());
        } else if ch == '-' {
            let mut end = at + 1;
            while chars.next_if(|(_, next)| *next == '-').is_some() {
                end += 1;
            }
            let next = chars.peek().map(|(_, next)| *next);
            let open_before = previous.is_none_or(char::is_whitespace);
            let open_after = next.is_none_or(char::is_whitespace);
            let dash = if end - at >= 2 {
                // `--flag` after a space is a command-line flag; any other run is a dash.
                !(open_before && next.is_some_and(|it| it.is_ascii_alphabetic()))
            } else {
                open_before && open_after
            };
            if dash {
                found.push(at..end);
            }
            previous = Some('-');
            continue;
        }
        previous = Some(ch);
    }
    found
}

fn starts_url(text: &str) -> bool {
    let lower = |prefix: &str| {
        text.get(..prefix.len()).is_some_and(|head| head.eq_ignore_ascii_case(prefix))
    };
    lower("http://") || lower("https://")
}

#[cfg(test)]
mod tests {
    use super::find_dashes;

    fn dashes(text: &str) -> Vec<&str> {
        find_dashes(text).into_iter().map(|range| &text[range]).collect()
    }

    #[test]
    fn dash_punctuation_is_found() {
        assert_eq!(dashes("Acme \u{2014} the incumbent"), ["\u{2014}"]);
        assert_eq!(dashes("Acme\u{2014}the incumbent"), ["\u{2014}"]);
        assert_eq!(dashes("2020\u{2013}2024"), ["\u{2013}"]);
        assert_eq!(dashes("Acme - the incumbent"), ["-"]);
        assert_eq!(dashes("Acme -- the incumbent"), ["--"]);
        assert_eq!(dashes("Acme--the incumbent"), ["--"]);
        assert_eq!(dashes("- a bullet\n- another"), ["-", "-"]);
        assert_eq!(dashes("the end -"), ["-"]);
    }

    #[test]
    fn hyphens_in_words_codes_urls_and_flags_are_not_dashes() {
        for text in [
            "TS-SCI holders",
            "until 2026-09-30",
            "order W91QUZ-20-D-0012",
            "a small-cell rule",
            "a change of -5 or -$1,200.00",
            "run `planner ask --narrator model` to see it",
            "see https://example.org/a-b--c \u{2014}",
            "with --narrator model",
            "",
        ] {
            let expected: &[&str] = if text.starts_with("see") { &["\u{2014}"] } else { &[] };
            assert_eq!(dashes(text), expected, "{text}");
        }
        assert_eq!(dashes("`a \u{2014} b` then c \u{2014} d"), ["\u{2014}"]);
    }
}
