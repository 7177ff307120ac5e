//! A circuit breaker: after repeated failed calls, stop calling for a cool-down period.

use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Closed (calls flow), open (calls refused until a deadline), or half-open (one trial call).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Closed { failures: u32 },
    Open { until: Instant },
    HalfOpen,
}

/// Counts consecutive failed calls; `threshold` of them open the circuit for `cooldown`. After
/// the cool-down one trial call is let through: success closes the circuit, failure reopens it.
#[derive(Debug)]
pub(crate) struct Breaker {
    threshold: u32,
    cooldown: Duration,
    state: Mutex<State>,
}

impl Breaker {
    pub(crate) fn new(threshold: u32, cooldown: Duration) -> Breaker {
        Breaker {
            threshold: threshold.max(1),
            cooldown,
            state: Mutex::new(State::Closed { failures: 0 }),
        }
    }

    /// Whether a call may go out now. Moves an expired open circuit to half-open.
    pub(crate) fn allow(&self) -> bool {
        let mut state = self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        match *state {
            State::Closed { .. } => true,
            State::HalfOpen => false,
            State::Open { until } => {
                if Instant::now() >= until {
                    *state = State::HalfOpen;
                    true
                } else {
                    false
                }
            }
        }
    }

    /// Records a call that got a usable HTTP answer.
    pub(crate) fn success(&self) {
        let mut state = self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        *state = State::Closed { failures: 0 };
    }

    /// Records a call that failed after its retries.
    pub(crate) fn failure(&self) {
        let mut state = self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        *state = match *state {
            State::Closed { failures } if failures + 1 < self.threshold => {
                State::Closed { failures: failures + 1 }
            }
            _ => State::Open { until: Instant::now() + self.cooldown },
        };
    }
}

#[cfg(test)]
mod tests {
    //! Breaker state transitions.

    use super::*;

    #[test]
    fn opens_after_threshold_and_recovers_after_cooldown() {
        let breaker = Breaker::new(2, Duration::ZERO);
        assert!(breaker.allow());
        breaker.failure();
        assert!(breaker.allow());
        breaker.failure();
        // Cool-down of zero: the next call is the half-open trial, the one after is refused.
        assert!(breaker.allow());
        assert!(!breaker.allow());
        breaker.success();
        assert!(breaker.allow());
    }

    #[test]
    fn stays_open_during_cooldown() {
        let breaker = Breaker::new(1, Duration::from_secs(3600));
        breaker.failure();
        assert!(!breaker.allow());
        assert!(!breaker.allow());
    }

    #[test]
    fn failed_trial_reopens() {
        let breaker = Breaker::new(1, Duration::ZERO);
        breaker.failure();
        assert!(breaker.allow());
        breaker.failure();
        assert!(breaker.allow(), "zero cool-down lets the next trial through");
    }
}
