//! Packed words: a word of at most 16 bytes packed little-endian into a `u128`, the
//! open-addressed table keyed by them, and a hasher for maps keyed by packed words or small
//! integers. The built-in vocabulary and each registry's declared words use them.
//!
//! Imports nothing from the crate.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

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

/// Packs a lower-case ASCII word of at most 16 bytes the way the tokenizer does.
pub(crate) fn pack(word: &str) -> u128 {
    pack_bytes(word.as_bytes())
}
