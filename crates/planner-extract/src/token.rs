//! The single tokenizing pass every extractor reads from.
//!
//! A token is a maximal run of ASCII letters and digits, or a lone `&` (read as the word
//! "and"). Everything else, including every non-ASCII character, is a gap between tokens. Token
//! boundaries are therefore always char boundaries, which keeps every reported span valid.

use crate::vocab::{self, Kw, MAX_WORD, NO_WORD};

/// One token: its byte range, its vocabulary id and a few shape facts.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Tok {
    /// Start byte (inclusive).
    pub(crate) start: usize,
    /// End byte (exclusive).
    pub(crate) end: usize,
    /// Vocabulary id of the lower-cased token, or [`NO_WORD`].
    pub(crate) id: u16,
    /// Value of a number word (`eighteen` = 18), 0 when the token is not one.
    pub(crate) num: u16,
    /// Shape flags, see the `SHAPE_*` constants.
    pub(crate) shape: u8,
}

/// Every character is a digit.
pub(crate) const DIGITS: u8 = 1;
/// At least one digit.
pub(crate) const HAS_DIGIT: u8 = 2;
/// At least one upper-case letter.
pub(crate) const HAS_UPPER: u8 = 4;
/// At least one lower-case letter.
pub(crate) const HAS_LOWER: u8 = 8;
/// Every character is a hexadecimal digit.
pub(crate) const HEX: u8 = 16;
/// The first character is an upper-case letter.
pub(crate) const FIRST_UPPER: u8 = 32;
/// An identifier (UUID or UEI) owns the token; set by [`crate::scan::Scan::claim`].
pub(crate) const CLAIMED: u8 = 64;

impl Tok {
    /// Length in bytes.
    pub(crate) fn len(&self) -> usize {
        self.end - self.start
    }

    /// Whether every flag in `flags` is set.
    pub(crate) fn is(&self, flags: u8) -> bool {
        self.shape & flags == flags
    }

    /// The keyword this token spells, if any.
    pub(crate) fn kw(&self) -> Option<Kw> {
        vocab::keyword(self.id)
    }
}

/// Byte classes for the tokenizer: bit flags per byte value.
const ALNUM: u8 = 1;
const C_DIGIT: u8 = 2;
const C_UPPER: u8 = 4;
const C_LOWER: u8 = 8;
const C_HEX: u8 = 16;

static CLASS: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] = if c.is_ascii_digit() {
            ALNUM | C_DIGIT | C_HEX
        } else if c.is_ascii_uppercase() {
            ALNUM | C_UPPER | if c <= b'F' { C_HEX } else { 0 }
        } else if c.is_ascii_lowercase() {
            ALNUM | C_LOWER | if c <= b'f' { C_HEX } else { 0 }
        } else {
            0
        };
        b += 1;
    }
    table
};

/// `0x20` in every byte.
const LOWER_BITS: u128 = u128::from_le_bytes([0x20; 16]);

/// Splits `text` into tokens in one pass over its bytes.
pub(crate) fn tokenize(text: &str) -> Vec<Tok> {
    let bytes = text.as_bytes();
    let mut toks = Vec::with_capacity(bytes.len() / 4 + 8);
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let class = CLASS[usize::from(b)];
        if class & ALNUM == 0 {
            if b == b'&' {
                toks.push(Tok { start: i, end: i + 1, id: Kw::And as u16, num: 0, shape: 0 });
            }
            i += 1;
            continue;
        }
        let start = i;
        let (mut any, mut all) = (0u8, u8::MAX);
        while let Some(&c) = bytes.get(i) {
            let class = CLASS[usize::from(c)];
            if class & ALNUM == 0 {
                break;
            }
            any |= class;
            all &= class;
            i += 1;
        }
        let mut shape = 0;
        if all & C_DIGIT != 0 {
            shape |= DIGITS;
        }
        if any & C_DIGIT != 0 {
            shape |= HAS_DIGIT;
        }
        if any & C_UPPER != 0 {
            shape |= HAS_UPPER;
        }
        if any & C_LOWER != 0 {
            shape |= HAS_LOWER;
        }
        if all & C_HEX != 0 {
            shape |= HEX;
        }
        if CLASS[usize::from(b)] & C_UPPER != 0 {
            shape |= FIRST_UPPER;
        }
        let len = i - start;
        let (id, num) = if any & C_DIGIT != 0 {
            // No vocabulary word holds a digit.
            (NO_WORD, 0)
        } else if len <= 16 {
            // Lower-cased bytes packed little-endian: `| 0x20` lower-cases a letter and keeps a
            // digit.
            let raw = match bytes.get(start..start + 16).and_then(|b| <[u8; 16]>::try_from(b).ok())
            {
                Some(window) => u128::from_le_bytes(window),
                None => {
                    let mut buf = [0u8; 16];
                    buf[..len].copy_from_slice(&bytes[start..i]);
                    u128::from_le_bytes(buf)
                }
            };
            let mask = u128::MAX >> (8 * (16 - len));
            vocab::lookup((raw | LOWER_BITS) & mask)
        } else if len <= MAX_WORD {
            let mut lower = [0u8; MAX_WORD];
            for (slot, c) in lower.iter_mut().zip(&bytes[start..i]) {
                *slot = c.to_ascii_lowercase();
            }
            vocab::lookup_long(&lower[..len])
        } else {
            (NO_WORD, 0)
        };
        toks.push(Tok { start, end: i, id, num, shape });
    }
    toks
}
