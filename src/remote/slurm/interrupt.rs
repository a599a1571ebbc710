//! Ctrl-C while following jobs: remembered, so that the follower cancels
//! the jobs (`scancel`) and returns instead of the process dying with jobs
//! left in the queue.

use std::sync::atomic::{AtomicBool, Ordering};

use nix::sys::signal::{SaFlags, SigAction, SigHandler, SigSet, Signal, sigaction};

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: nix::libc::c_int) {
    INTERRUPTED.store(true, Ordering::SeqCst);
}

/// Whether SIGINT or SIGTERM arrived since the guard was installed.
pub(super) fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// Catches SIGINT and SIGTERM while it lives; restores the old handlers.
pub(super) struct Guard {
    old: Vec<(Signal, SigAction)>,
}

impl Guard {
    pub fn install() -> Guard {
        INTERRUPTED.store(false, Ordering::SeqCst);
        let action = SigAction::new(
            SigHandler::Handler(on_signal),
            SaFlags::SA_RESTART,
            SigSet::empty(),
        );
        let mut old = Vec::new();
        for sig in [Signal::SIGINT, Signal::SIGTERM] {
            // SAFETY: the handler only stores to an atomic.
            if let Ok(prev) = unsafe { sigaction(sig, &action) } {
                old.push((sig, prev));
            }
        }
        Guard { old }
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        for (sig, prev) in &self.old {
            // SAFETY: restoring what was there before.
            let _ = unsafe { sigaction(*sig, prev) };
        }
    }
}
