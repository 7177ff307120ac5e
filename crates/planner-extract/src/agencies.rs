//! The agency dictionary: canonical names and the ways people write them, read from
//! `fixtures/registry/agencies.csv` (`value,aliases`, aliases separated by `|`), the vocabulary
//! file beside the reference registry.
//!
//! Built from DOMAIN.md "Agencies: toptier names, CGAC codes, acronyms" and the reference
//! registry's acronym list. Military departments and other subtiers keep their own canonical
//! name ("Army" is the Department of the Army, not the Department of Defense).
//!
//! Alias spelling: lower-case words separated by single spaces. A leading marker sets how
//! strictly the case of a one-word alias is checked, because some acronyms are also common words:
//! `=` every letter upper-case (`VA`, not `va`); `^` first and last letter upper-case (`DoD`,
//! `DOE`, not `doe`); `~` capitalised, not the first word of a sentence and not followed by
//! "of" or "local" (`State`). Without a marker the alias matches in any case. Inside quotes any
//! case matches. Every canonical name is an alias too; aliases starting with "department of"
//! also match with "dept" and with or without "the"; every alias without a marker also matches
//! after "U.S.", "US" or "United States".

use std::sync::LazyLock;

/// The dictionary file, the one the reference registry's `agency` kind reads.
const CSV: &str = planner_registry::reference::AGENCIES;

/// `(canonical name, aliases)` in the file's order; the order is the dictionary's public order.
pub(crate) static AGENCIES: LazyLock<Vec<(&'static str, Vec<&'static str>)>> =
    LazyLock::new(|| {
        CSV.lines()
            .skip(1)
            .filter(|line| !line.trim().is_empty())
            .filter_map(|line| {
                let (name, aliases) = line.split_once(',')?;
                let aliases = aliases.split('|').map(str::trim).filter(|a| !a.is_empty()).collect();
                Some((name.trim(), aliases))
            })
            .collect()
    });

/// Every lower-case word of the dictionary, for the vocabulary.
pub(crate) fn dictionary_words() -> Vec<String> {
    let mut words = vec!["dept".to_owned(), "us".to_owned(), "u".to_owned(), "s".to_owned()];
    words.extend(["united", "states", "department", "of", "the"].map(str::to_owned));
    for (name, aliases) in AGENCIES.iter() {
        words.extend(split_words(name));
        for alias in aliases {
            words.extend(split_words(alias.trim_start_matches(['=', '^', '~'])));
        }
    }
    words
}

pub(crate) fn split_words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_ascii_alphanumeric() && c != '&')
        .filter(|w| !w.is_empty())
        .map(|w| if w == "&" { "and".to_owned() } else { w.to_ascii_lowercase() })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_dictionary_file_loads_whole() {
        assert_eq!(super::AGENCIES.len(), 60);
        assert!(super::CSV.lines().skip(1).all(|line| !line.contains('"')), "no quoted field");
        assert_eq!(
            super::AGENCIES[2],
            ("Department of the Navy", vec!["navy", "=don", "=usn", "navy department"])
        );
    }
}
