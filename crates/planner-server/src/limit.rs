//! Token buckets by key, refilled at the configured rate: one limiter per API key (every
//! authenticated request), one per client address (requests that fail authentication, checked
//! before any key lookup).

use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard};
use std::time::Instant;

#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

/// The most buckets a limiter keeps: past it, the buckets that refilled completely (which
/// behave exactly as absent ones) are forgotten, and if that frees nothing, every bucket is (a
/// flood from more addresses than this gets a fresh burst per address, never unbounded memory or
/// a scan per request).
const MAX_BUCKETS: usize = 65_536;

/// Token buckets by `K`.
#[derive(Debug)]
pub(crate) struct RateLimiter<K> {
    per_second: f64,
    burst: f64,
    buckets: Mutex<BTreeMap<K, Bucket>>,
}

impl<K: Ord + Copy> RateLimiter<K> {
    /// `per_minute` requests a minute on average, `burst` at once; `per_minute` 0 is no limit.
    pub(crate) fn new(per_minute: u32, burst: u32) -> RateLimiter<K> {
        RateLimiter {
            per_second: f64::from(per_minute) / 60.0,
            burst: f64::from(burst.max(1)),
            buckets: Mutex::new(BTreeMap::new()),
        }
    }

    fn lock(&self) -> MutexGuard<'_, BTreeMap<K, Bucket>> {
        // Every change is one bucket's arithmetic: consistent whatever panicked.
        self.buckets.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The bucket of `key` refilled to `now`.
    fn refilled(&self, buckets: &BTreeMap<K, Bucket>, key: K, now: Instant) -> Bucket {
        match buckets.get(&key) {
            None => Bucket { tokens: self.burst, at: now },
            Some(bucket) => {
                let refill =
                    now.saturating_duration_since(bucket.at).as_secs_f64() * self.per_second;
                Bucket { tokens: (bucket.tokens + refill).min(self.burst), at: now }
            }
        }
    }

    fn wait(&self, tokens: f64) -> u64 {
        let wait = ((1.0 - tokens) / self.per_second).ceil();
        // At most a day: the cast cannot overflow.
        #[expect(clippy::cast_possible_truncation, clippy::cast_sign_loss, reason = "clamped")]
        let wait = wait.clamp(1.0, 86_400.0) as u64;
        wait
    }

    /// Without taking a token: the seconds until `key` has one, when it has none now.
    pub(crate) fn blocked(&self, key: K) -> Option<u64> {
        if self.per_second <= 0.0 {
            return None;
        }
        let bucket = self.refilled(&self.lock(), key, Instant::now());
        (bucket.tokens < 1.0).then(|| self.wait(bucket.tokens))
    }

    /// Takes a token for `key`; when there is none, the seconds until there is one.
    pub(crate) fn take(&self, key: K) -> Result<(), u64> {
        if self.per_second <= 0.0 {
            return Ok(());
        }
        let now = Instant::now();
        let mut buckets = self.lock();
        let mut bucket = self.refilled(&buckets, key, now);
        let outcome = if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            Ok(())
        } else {
            Err(self.wait(bucket.tokens))
        };
        if buckets.len() >= MAX_BUCKETS && !buckets.contains_key(&key) {
            let full = |b: &Bucket| {
                b.tokens + now.saturating_duration_since(b.at).as_secs_f64() * self.per_second
                    >= self.burst
            };
            buckets.retain(|_, b| !full(b));
            if buckets.len() >= MAX_BUCKETS {
                buckets.clear();
            }
        }
        buckets.insert(key, bucket);
        outcome
    }
}

#[cfg(test)]
mod tests {
    //! The bucket's arithmetic, without waiting.

    use super::RateLimiter;

    #[test]
    fn a_burst_is_allowed_then_the_key_waits() {
        let limiter = RateLimiter::new(60, 3);
        let key = uuid::Uuid::from_u128(1);
        for _ in 0..3 {
            assert_eq!(limiter.blocked(key), None);
            assert_eq!(limiter.take(key), Ok(()));
        }
        assert_eq!(limiter.blocked(key), Some(1));
        assert_eq!(limiter.take(key), Err(1));
        // Another key has its own bucket.
        assert_eq!(limiter.take(uuid::Uuid::from_u128(2)), Ok(()));
    }

    #[test]
    fn zero_per_minute_is_no_limit() {
        let limiter = RateLimiter::new(0, 1);
        for _ in 0..100 {
            assert_eq!(limiter.take(uuid::Uuid::from_u128(1)), Ok(()));
        }
        assert_eq!(limiter.blocked(uuid::Uuid::from_u128(1)), None);
    }

    #[test]
    fn full_buckets_are_forgotten_past_the_cap() {
        let limiter = RateLimiter::<u32>::new(60, 1);
        for key in 0..super::MAX_BUCKETS as u32 + 10 {
            assert_eq!(limiter.take(key), Ok(()));
        }
        // Every bucket was empty (each took its one token): at the cap they all went.
        assert!(limiter.lock().len() < super::MAX_BUCKETS);
        assert_eq!(limiter.take(super::MAX_BUCKETS as u32 + 9), Err(1));
    }
}
