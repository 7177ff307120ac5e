//! The vocabulary: every word an extractor reacts to, looked up once per token.
//!
//! Words are keyed by their lower-case bytes packed into a `u128`, so a lookup is one multiply
//! and one probe. Keywords used by the hand-written matchers come first (their id is their
//! discriminant); agency dictionary words follow.

use std::collections::{BTreeMap, HashMap};
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::LazyLock;

use crate::agency;
use crate::token::pack;

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

/// A multiplicative hasher for packed words: they are already well spread.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct WordHasher(u64);

impl Hasher for WordHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n.wrapping_mul(0x9e_37_79_b9_7f_4a_7c_15).rotate_left(26);
    }

    fn write_u128(&mut self, n: u128) {
        #[expect(clippy::cast_possible_truncation, reason = "folding the two halves on purpose")]
        let folded = (n as u64) ^ ((n >> 64) as u64).rotate_left(29);
        self.0 = folded.wrapping_mul(0x9e_37_79_b9_7f_4a_7c_15).rotate_left(26);
    }
}

/// A hash map keyed by packed words or small integers.
pub(crate) type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<WordHasher>>;

/// An open-addressed table of words of at most 16 bytes, each packed little-endian into a
/// `u128` (a packed word is never 0, so 0 marks a free slot): a lookup is one multiply and
/// usually one probe. The built-in vocabulary and each registry's declared words use it.
#[derive(Debug, Clone)]
pub(crate) struct PackedTable<T> {
    slots: Vec<(u128, T)>,
    /// 64 less the number of index bits.
    shift: u32,
    /// What a lookup of a word not in the table returns.
    missing: T,
}

impl<T: Copy> PackedTable<T> {
    /// A table of `entries` (distinct non-zero keys) with at least four slots per entry.
    pub(crate) fn new(entries: impl ExactSizeIterator<Item = (u128, T)>, missing: T) -> Self {
        let size = (entries.len() * 4).next_power_of_two().max(64);
        let mut slots = vec![(0u128, missing); size];
        let shift = 64 - size.trailing_zeros();
        for (key, value) in entries {
            if key == 0 {
                continue;
            }
            let mut at = slot_of(key, shift);
            while slots[at].0 != 0 {
                at = (at + 1) & (size - 1);
            }
            slots[at] = (key, value);
        }
        PackedTable { slots, shift, missing }
    }

    /// The value of a packed word, or the table's `missing` value.
    pub(crate) fn get(&self, packed: u128) -> T {
        let mask = self.slots.len().wrapping_sub(1);
        let mut at = slot_of(packed, self.shift);
        loop {
            let Some(&(key, value)) = self.slots.get(at) else { return self.missing };
            if key == packed {
                return value;
            }
            if key == 0 {
                return self.missing;
            }
            at = (at + 1) & mask;
        }
    }
}

/// The slot of a packed word in a table of `2^(64 - shift)` slots (the top bits of the hash).
fn slot_of(packed: u128, shift: u32) -> usize {
    #[expect(clippy::cast_possible_truncation, reason = "folding the two halves on purpose")]
    let folded = (packed as u64) ^ ((packed >> 64) as u64).wrapping_mul(0x9e_37_79_b9_7f_4a_7c_15);
    (folded.wrapping_mul(0x51_7c_c1_b7_27_22_0a_95) >> shift) as usize
}

/// Packs up to 16 bytes little-endian, zero-padded (the bytes past 16 are ignored).
pub(crate) fn pack_bytes(bytes: &[u8]) -> u128 {
    let mut buf = [0u8; 16];
    let len = bytes.len().min(16);
    buf[..len].copy_from_slice(&bytes[..len]);
    u128::from_le_bytes(buf)
}

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
    for word in agency::dictionary_words() {
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
