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
/// the cool-down one trial call is let through: success closes the circuit, failure reopens it,
/// and so does a trial whose [`Permit`] is dropped without a verdict (its future was cancelled:
/// the client went away, or a caller's timeout fired first), so the circuit never stays
/// half-open with no call in flight.
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

    /// A permit for a call if one may go out now. Moves an expired open circuit to half-open,
    /// the permit being its trial.
    pub(crate) fn allow(&self) -> Option<Permit<'_>> {
        let mut state = self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let trial = match *state {
            State::Closed { .. } => false,
            State::HalfOpen => return None,
            State::Open { until } => {
                if Instant::now() < until {
                    return None;
                }
                *state = State::HalfOpen;
                true
            }
        };
        Some(Permit { breaker: self, trial, settled: false })
    }

    /// Records a call that got a usable HTTP answer.
    fn success(&self) {
        let mut state = self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        *state = State::Closed { failures: 0 };
    }

    /// Records a call that failed after its retries.
    fn failure(&self) {
        let mut state = self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        *state = match *state {
            State::Closed { failures } if failures + 1 < self.threshold => {
                State::Closed { failures: failures + 1 }
            }
            _ => State::Open { until: Instant::now() + self.cooldown },
        };
    }
}

/// One call let through by the breaker; its verdict is [`Permit::success`] or
/// [`Permit::failure`]. A trial permit dropped without a verdict counts as a failure; an ordinary
/// one counts as nothing (a cancelled call says nothing of the server).
#[derive(Debug)]
#[must_use = "a permit records the call's verdict"]
pub(crate) struct Permit<'a> {
    breaker: &'a Breaker,
    trial: bool,
    settled: bool,
}

impl Permit<'_> {
    /// The call got a usable HTTP answer.
    pub(crate) fn success(mut self) {
        self.settled = true;
        self.breaker.success();
    }

    /// The call failed after its retries.
    pub(crate) fn failure(mut self) {
        self.settled = true;
        self.breaker.failure();
    }
}

impl Drop for Permit<'_> {
    fn drop(&mut self) {
        if self.trial && !self.settled {
            self.breaker.failure();
        }
    }
}

#[cfg(test)]
mod tests {
    //! Breaker state transitions.

    use super::*;

    #[test]
    fn opens_after_threshold_and_recovers_after_cooldown() {
        let breaker = Breaker::new(2, Duration::ZERO);
        breaker.allow().unwrap().failure();
        breaker.allow().unwrap().failure();
        // Cool-down of zero: the next call is the half-open trial, the one after is refused.
        let trial = breaker.allow().unwrap();
        assert!(breaker.allow().is_none());
        trial.success();
        assert!(breaker.allow().is_some());
    }

    #[test]
    fn stays_open_during_cooldown() {
        let breaker = Breaker::new(1, Duration::from_secs(3600));
        breaker.allow().unwrap().failure();
        assert!(breaker.allow().is_none());
        assert!(breaker.allow().is_none());
    }

    #[test]
    fn failed_trial_reopens() {
        let breaker = Breaker::new(1, Duration::ZERO);
        breaker.allow().unwrap().failure();
        breaker.allow().unwrap().failure();
        assert!(breaker.allow().is_some(), "zero cool-down lets the next trial through");
    }

    #[test]
    fn a_dropped_trial_reopens_and_a_dropped_call_counts_nothing() {
        let breaker = Breaker::new(1, Duration::from_secs(3600));
        // A closed-circuit call dropped without a verdict leaves the circuit closed.
        drop(breaker.allow().unwrap());
        assert!(breaker.allow().is_some());
        let breaker = Breaker::new(1, Duration::ZERO);
        breaker.allow().unwrap().failure();
        let trial = breaker.allow().unwrap();
        assert!(breaker.allow().is_none(), "half-open while the trial is in flight");
        drop(trial);
        // Reopened (cool-down zero), so the next call is a new trial rather than a refusal.
        let next = breaker.allow().expect("a dropped trial must not leave the circuit stuck");
        next.success();
        assert_eq!(*breaker.state.lock().unwrap(), State::Closed { failures: 0 });
    }
}
