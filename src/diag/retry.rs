//! Retrying transient failures with exponential backoff: the one loop the
//! network clients share (fetch's downloads, the registry client's requests
//! and blob transfers). What is transient, and what to report before a
//! retry, is the caller's.

use std::future::Future;
use std::time::Duration;

/// How often to try and how long to wait in between.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Retry {
    /// Attempts in all (at least one is made).
    pub attempts: u32,
    /// The wait after the first failure; each next wait doubles (up to 64×).
    pub backoff: Duration,
}

impl Retry {
    pub fn new(attempts: u32, backoff: Duration) -> Retry {
        Retry { attempts, backoff }
    }

    /// The wait after failed attempt `attempt` (1-based).
    pub fn delay(&self, attempt: u32) -> Duration {
        self.backoff
            .saturating_mul(1 << attempt.saturating_sub(1).min(6))
    }

    /// Calls `attempt(n)` for n = 1, 2, … until it succeeds, fails with an
    /// error that is not `transient`, or the attempts are used up; calls
    /// `on_retry(n, &error)` and waits before each retry. A failure comes
    /// with the number of attempts made.
    pub fn run<T, E>(
        &self,
        mut attempt: impl FnMut(u32) -> Result<T, E>,
        transient: impl Fn(&E) -> bool,
        mut on_retry: impl FnMut(u32, &E),
    ) -> Result<T, (E, u32)> {
        let mut n = 1;
        loop {
            match attempt(n) {
                Err(e) if transient(&e) && n < self.attempts => {
                    on_retry(n, &e);
                    std::thread::sleep(self.delay(n));
                    n += 1;
                }
                Err(e) => return Err((e, n)),
                Ok(v) => return Ok(v),
            }
        }
    }

    /// [`Retry::run`] for an async `attempt` (waits without blocking the
    /// runtime).
    pub async fn run_async<T, E, F>(
        &self,
        mut attempt: impl FnMut(u32) -> F,
        transient: impl Fn(&E) -> bool,
        mut on_retry: impl FnMut(u32, &E),
    ) -> Result<T, (E, u32)>
    where
        F: Future<Output = Result<T, E>>,
    {
        let mut n = 1;
        loop {
            match attempt(n).await {
                Err(e) if transient(&e) && n < self.attempts => {
                    on_retry(n, &e);
                    tokio::time::sleep(self.delay(n)).await;
                    n += 1;
                }
                Err(e) => return Err((e, n)),
                Ok(v) => return Ok(v),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_double_and_cap() {
        let r = Retry::new(4, Duration::from_millis(10));
        assert_eq!(r.delay(1), Duration::from_millis(10));
        assert_eq!(r.delay(3), Duration::from_millis(40));
        assert_eq!(r.delay(30), Duration::from_millis(640));
    }

    #[test]
    fn retries_transient_failures_until_the_attempts_are_used() {
        let r = Retry::new(3, Duration::ZERO);
        let mut retried = Vec::new();
        let out: Result<(), _> = r.run(Err, |_| true, |n, _| retried.push(n));
        assert_eq!(out, Err((3, 3)));
        assert_eq!(retried, [1, 2]);
        // A permanent failure stops at once; a success ends the loop.
        let out: Result<(), _> = r.run(Err, |_| false, |_, _| panic!("no retry"));
        assert_eq!(out, Err((1, 1)));
        let out = r.run(|n| if n < 2 { Err(n) } else { Ok(n) }, |_| true, |_, _| {});
        assert_eq!(out, Ok(2));
    }

    #[test]
    fn the_async_loop_retries_alike() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        let r = Retry::new(2, Duration::from_millis(1));
        let out: Result<u32, (u32, u32)> =
            rt.block_on(r.run_async(|n| async move { Err(n) }, |_| true, |_, _| {}));
        assert_eq!(out, Err((2, 2)));
    }
}
