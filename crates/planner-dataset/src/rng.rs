//! A small self-contained PRNG (SplitMix64 seeding xoshiro256**), so generated data never
//! changes with a dependency upgrade. Integer arithmetic only: no floating point, no libm.

/// A xoshiro256** generator.
#[derive(Debug, Clone)]
pub(crate) struct Rng {
    state: [u64; 4],
}

impl Rng {
    /// A generator for one named stream of one seed: streams are independent, so a change to how
    /// one table is generated leaves the others as they were.
    pub(crate) fn stream(seed: u64, name: &str) -> Rng {
        let mut mix = seed;
        for byte in name.bytes() {
            mix = splitmix(&mut mix) ^ u64::from(byte);
        }
        let mut state = [0; 4];
        for slot in &mut state {
            *slot = splitmix(&mut mix);
        }
        Rng { state }
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        let [s0, s1, s2, s3] = &mut self.state;
        let result = s1.wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = *s1 << 17;
        *s2 ^= *s0;
        *s3 ^= *s1;
        *s1 ^= *s2;
        *s0 ^= *s3;
        *s2 ^= t;
        *s3 = s3.rotate_left(45);
        result
    }

    /// Uniform in `0..n` (`n > 0`), by multiply-high.
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// Uniform index into a slice of length `n`.
    pub(crate) fn index(&mut self, n: usize) -> usize {
        self.below(n as u64) as usize
    }

    /// True with probability `percent` / 100.
    pub(crate) fn percent(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    /// An index in `0..n` skewed towards 0 (the cube of a uniform draw): a few items are picked
    /// often and most rarely, like incumbents in a market.
    pub(crate) fn skewed(&mut self, n: usize) -> usize {
        let u = u128::from(self.below(1 << 20));
        ((u * u * u * n as u128) >> 60) as usize
    }

    /// An index into `weights`, with probability proportional to the weight.
    pub(crate) fn weighted(&mut self, cumulative: &[u64]) -> usize {
        let total = cumulative.last().copied().unwrap_or(0);
        let draw = self.below(total.max(1));
        cumulative.partition_point(|&edge| edge <= draw)
    }

    /// 128 random bits as a version-4 UUID.
    pub(crate) fn uuid(&mut self) -> uuid::Uuid {
        let bits = (u128::from(self.next_u64()) << 64) | u128::from(self.next_u64());
        uuid::Builder::from_random_bytes(bits.to_be_bytes()).into_uuid()
    }
}

fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Running sums of `weights`, for [`Rng::weighted`].
pub(crate) fn cumulative(weights: impl IntoIterator<Item = u64>) -> Vec<u64> {
    let mut sum = 0;
    weights
        .into_iter()
        .map(|weight| {
            sum += weight;
            sum
        })
        .collect()
}

#[cfg(test)]
mod tests {
    //! The generator's output is part of the dataset's contract: pin it.

    use super::*;

    #[test]
    fn streams_are_stable() {
        let mut rng = Rng::stream(7, "awards");
        let first: Vec<u64> = (0..3).map(|_| rng.below(1_000_000)).collect();
        let mut again = Rng::stream(7, "awards");
        let second: Vec<u64> = (0..3).map(|_| again.below(1_000_000)).collect();
        assert_eq!(first, second);
        let mut other = Rng::stream(7, "bench");
        assert_ne!(first, (0..3).map(|_| other.below(1_000_000)).collect::<Vec<_>>());
        insta::assert_debug_snapshot!(first);
    }

    #[test]
    fn weighted_and_skewed_stay_in_range() {
        let mut rng = Rng::stream(1, "x");
        let table = cumulative([1, 0, 5]);
        for _ in 0..1000 {
            assert_ne!(rng.weighted(&table), 1);
            assert!(rng.weighted(&table) < 3);
            assert!(rng.skewed(10) < 10);
        }
    }
}
