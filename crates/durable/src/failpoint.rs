//! Fail points for the crash tests: `DYNGRAPH_DURABLE_FAILPOINT=name:count`
//! kills the process with `SIGKILL` the `count`-th time it reaches `name`.
//! The points sit at the steps of checkpoints, rewrites, log commits and
//! closes, where a random kill would rarely land.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

struct FailPoint {
    name: String,
    remaining: AtomicU64,
}

fn armed_fail_point() -> Option<&'static FailPoint> {
    static POINT: OnceLock<Option<FailPoint>> = OnceLock::new();
    POINT
        .get_or_init(|| {
            let spec = std::env::var("DYNGRAPH_DURABLE_FAILPOINT").ok()?;
            let (name, count) = spec.split_once(':')?;
            Some(FailPoint {
                name: name.to_string(),
                remaining: AtomicU64::new(count.parse().ok()?),
            })
        })
        .as_ref()
}

/// Kills the process here if the armed fail point is `name` and its count
/// runs out. Costs one atomic load when no point is armed.
#[inline]
pub(crate) fn fail_point(name: &str) {
    if let Some(point) = armed_fail_point()
        && point.name == name
        && point.remaining.fetch_sub(1, Ordering::SeqCst) == 1
    {
        // SAFETY: raising a signal at our own process has no memory
        // safety preconditions.
        unsafe {
            libc::kill(libc::getpid(), libc::SIGKILL);
        }
    }
}
