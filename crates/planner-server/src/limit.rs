//! The per-key rate limit: a token bucket per API key, refilled at the configured rate.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::Instant;

#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

/// Token buckets by key id.
#[derive(Debug)]
pub(crate) struct RateLimiter {
    per_second: f64,
    burst: f64,
    buckets: Mutex<BTreeMap<uuid::Uuid, Bucket>>,
}

impl RateLimiter {
    /// `per_minute` requests a minute on average, `burst` at once; `per_minute` 0 is no limit.
    pub(crate) fn new(per_minute: u32, burst: u32) -> RateLimiter {
        RateLimiter {
            per_second: f64::from(per_minute) / 60.0,
            burst: f64::from(burst.max(1)),
            buckets: Mutex::new(BTreeMap::new()),
        }
    }

    /// Takes a token for `key`; when there is none, the seconds until there is one.
    pub(crate) fn take(&self, key: uuid::Uuid) -> Result<(), u64> {
        if self.per_second <= 0.0 {
            return Ok(());
        }
        let now = Instant::now();
        let mut buckets = match self.buckets.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        let bucket = buckets.entry(key).or_insert(Bucket { tokens: self.burst, at: now });
        let refill = now.saturating_duration_since(bucket.at).as_secs_f64() * self.per_second;
        bucket.tokens = (bucket.tokens + refill).min(self.burst);
        bucket.at = now;
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            Ok(())
        } else {
            let wait = ((1.0 - bucket.tokens) / self.per_second).ceil();
            // At most a day: the cast cannot overflow.
            #[expect(clippy::cast_possible_truncation, clippy::cast_sign_loss, reason = "clamped")]
            let wait = wait.clamp(1.0, 86_400.0) as u64;
            Err(wait)
        }
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
            assert_eq!(limiter.take(key), Ok(()));
        }
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
    }
}
