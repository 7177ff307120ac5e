//! The vocabulary: every word an extractor reacts to, looked up once per token.
//!
//! Words are keyed by their lower-case bytes packed into a `u128`, so a lookup is one multiply
//! and one probe. Keywords used by the hand-written matchers come first (their id is their
//! discriminant); agency dictionary words follow.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use crate::agencies;
use crate::pack::{FastMap, PackedTable, pack};

/// The id of a token that is not in the vocabulary.
pub(crate) const NO_WORD: u16 = u16::MAX;

macro_rules! keywords {
    ($($variant:ident = $text:literal,)*) => {
        /// A keyword the matchers test for by identity.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub(crate) enum Kw {
            $(
                #[doc = $text]
                $variant,
            )*
        }

        impl Kw {
            /// Every keyword with its lower-case spelling, in discriminant order.
            pub(crate) const ALL: &[(Kw, &str)] = &[$((Kw::$variant, $text),)*];
        }
    };
}

keywords! {
    // Clearance levels and their joiners.
    Top = "top",
    Secret = "secret",
    Ts = "ts",
    Sci = "sci",
    Tssci = "tssci",
    Topsecret = "topsecret",
    Confidential = "confidential",
    W = "w",
    With = "with",
    Plus = "plus",
    And = "and",
    Including = "including",
    Incl = "incl",
    Clearance = "clearance",
    Clearances = "clearances",
    Cleared = "cleared",
    Q = "q",
    L = "l",
    Dod = "dod",
    Doe = "doe",
    Interim = "interim",
    // Compartments, their long names and sub-designators.
    Si = "si",
    Tk = "tk",
    G = "g",
    Hcs = "hcs",
    Klm = "klm",
    Gamma = "gamma",
    Comint = "comint",
    Kdk = "kdk",
    Klondike = "klondike",
    Klamath = "klamath",
    Talent = "talent",
    Keyhole = "keyhole",
    Rsv = "rsv",
    Bur = "bur",
    Mvl = "mvl",
    Compartment = "compartment",
    Compartments = "compartments",
    Compartmented = "compartmented",
    O = "o",
    P = "p",
    X = "x",
    R = "r",
    Blfh = "blfh",
    Idit = "idit",
    Kand = "kand",
    Eu = "eu",
    Nk = "nk",
    // Month windows.
    Month = "month",
    Months = "months",
    Mo = "mo",
    Mos = "mos",
    Mth = "mth",
    Mths = "mths",
    Year = "year",
    Years = "years",
    Yr = "yr",
    Yrs = "yrs",
    Quarter = "quarter",
    Quarters = "quarters",
    Qtr = "qtr",
    Qtrs = "qtrs",
    Decade = "decade",
    Decades = "decades",
    Last = "last",
    Past = "past",
    Next = "next",
    Previous = "previous",
    Prior = "prior",
    Coming = "coming",
    Upcoming = "upcoming",
    Trailing = "trailing",
    Following = "following",
    Fiscal = "fiscal",
    Calendar = "calendar",
    A = "a",
    An = "an",
    Within = "within",
    In = "in",
    Over = "over",
    For = "for",
    The = "the",
    // NAICS cues and money words.
    Naics = "naics",
    Code = "code",
    Codes = "codes",
    Dollars = "dollars",
    Usd = "usd",
    // UEI cues and anti-cues.
    Uei = "uei",
    Ueis = "ueis",
    Vendor = "vendor",
    Entity = "entity",
    Contractor = "contractor",
    Company = "company",
    Incumbent = "incumbent",
    Recipient = "recipient",
    Awardee = "awardee",
    Sam = "sam",
    Firm = "firm",
    Prime = "prime",
    Sub = "sub",
    Subcontractor = "subcontractor",
    Partner = "partner",
    Piid = "piid",
    Contract = "contract",
    Award = "award",
    Order = "order",
    Solicitation = "solicitation",
    Idv = "idv",
    Gwac = "gwac",
    Bpa = "bpa",
    // Words that stop a bare "State" from naming the Department of State.
    Of = "of",
    Or = "or",
    Local = "local",
    Level = "level",
    Government = "government",
    Governments = "governments",
    Wide = "wide",
}

const NUMBER_WORDS: &[(&str, u16)] = &[
    ("one", 1),
    ("two", 2),
    ("three", 3),
    ("four", 4),
    ("five", 5),
    ("six", 6),
    ("seven", 7),
    ("eight", 8),
    ("nine", 9),
    ("ten", 10),
    ("eleven", 11),
    ("twelve", 12),
    ("thirteen", 13),
    ("fourteen", 14),
    ("fifteen", 15),
    ("sixteen", 16),
    ("seventeen", 17),
    ("eighteen", 18),
    ("nineteen", 19),
    ("twenty", 20),
    ("thirty", 30),
    ("forty", 40),
    ("fifty", 50),
    ("sixty", 60),
    ("seventy", 70),
    ("eighty", 80),
    ("ninety", 90),
];

struct Vocab {
    /// Words of at most 16 bytes, packed: (id, number value).
    short: PackedTable<(u16, u16)>,
    /// The few longer words ("counterintelligence").
    long: FastMap<Box<[u8]>, (u16, u16)>,
}

/// The longest word the vocabulary may hold.
pub(crate) const MAX_WORD: usize = 32;

static VOCAB: LazyLock<Vocab> = LazyLock::new(|| {
    let mut words: BTreeMap<u128, (u16, u16)> = BTreeMap::new();
    let mut long: FastMap<Box<[u8]>, (u16, u16)> = FastMap::default();
    let mut next = 0u16;
    for &(_, text) in Kw::ALL {
        words.insert(pack(text), (next, 0));
        next += 1;
    }
    for &(text, value) in NUMBER_WORDS {
        words.insert(pack(text), (next, value));
        next += 1;
    }
    for word in agencies::dictionary_words() {
        if word.len() > MAX_WORD {
            continue;
        }
        let slot = if word.len() > 16 {
            long.entry(word.into_bytes().into_boxed_slice()).or_insert((NO_WORD, 0))
        } else {
            words.entry(pack(&word)).or_insert((NO_WORD, 0))
        };
        if slot.0 == NO_WORD {
            *slot = (next, 0);
            next += 1;
        }
    }
    Vocab { short: PackedTable::new(words.into_iter(), (NO_WORD, 0)), long }
});

/// The id and number value of a packed lower-case token.
pub(crate) fn lookup(packed: u128) -> (u16, u16) {
    VOCAB.short.get(packed)
}

/// The id and number value of a lower-case token longer than 16 bytes.
pub(crate) fn lookup_long(lower: &[u8]) -> (u16, u16) {
    VOCAB.long.get(lower).copied().unwrap_or((NO_WORD, 0))
}

/// The id of a lower-case word, or [`NO_WORD`].
pub(crate) fn id_of(word: &str) -> u16 {
    if word.len() > 16 { lookup_long(word.as_bytes()).0 } else { lookup(pack(word)).0 }
}

/// The keyword with this id, if the id belongs to one.
pub(crate) fn keyword(id: u16) -> Option<Kw> {
    Kw::ALL.get(usize::from(id)).map(|&(kw, _)| kw)
}

#[cfg(test)]
mod tests {
    //! The keyword table is consistent with its lookup.

    use super::*;

    #[test]
    fn every_keyword_looks_up_to_itself() {
        for &(kw, text) in Kw::ALL {
            assert_eq!(keyword(id_of(text)), Some(kw), "{text}");
            assert!(text.len() <= 16 && text.bytes().all(|b| b.is_ascii_lowercase()), "{text}");
        }
    }

    #[test]
    fn number_words_carry_their_value() {
        assert_eq!(lookup(pack("eighteen")).1, 18);
        assert_eq!(lookup(pack("ninety")).1, 90);
        assert_eq!(lookup(pack("month")).1, 0);
    }
}
