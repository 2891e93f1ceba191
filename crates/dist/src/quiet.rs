//! Timely's answer to a lost peer is a cascade of panics: the network
//! thread that read the end of the stream panics ("timely communication
//! error: reading data: socket closed"), then every worker that touches the
//! poisoned queues ("MergeQueue poisoned."), then whoever joins them. Each
//! one is printed by the panic hook before this crate turns the failure
//! into one error naming the lost process (from [`crate::connect::Links`]).
//!
//! [`install`] adds, once per process, a panic hook in front of the
//! existing one that keeps those panics quiet: a panic on a timely thread
//! (named `timely:...`) or one of this crate's (`dyngraph-dist-...`) is
//! not printed when it is a timely communication error, or once such an
//! error has happened in this process. Every other panic, and every panic
//! before a peer was lost, goes to the previous hook as before. The hook
//! also keeps the last message of a panic on a worker thread, which
//! timely's join reduces to `Any { .. }`, for the error that reports it.

use std::panic::PanicHookInfo;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, Once};

static INSTALL: Once = Once::new();

/// Set at the first timely communication error in this process: from then
/// on the cascade on timely's threads is expected and not printed.
static PEER_LOST: AtomicBool = AtomicBool::new(false);

/// The last panic on a timely worker thread: message and location.
static LAST_WORKER_PANIC: Mutex<Option<String>> = Mutex::new(None);

/// Installs the hook (idempotent).
pub(crate) fn install() {
    INSTALL.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let on_worker = std::thread::current()
                .name()
                .is_some_and(|name| name.starts_with("timely:work"));
            if on_worker {
                let location = info
                    .location()
                    .map(|l| format!(" at {}:{}", l.file(), l.line()))
                    .unwrap_or_default();
                *LAST_WORKER_PANIC.lock().unwrap_or_else(|p| p.into_inner()) =
                    Some(format!("{}{location}", message(info)));
            }
            if !is_peer_loss_cascade(info) {
                previous(info);
            }
        }));
    });
}

/// The message and location of the last panic on a worker thread of this
/// process, if any.
pub(crate) fn last_worker_panic() -> Option<String> {
    LAST_WORKER_PANIC
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .clone()
}

fn message<'a>(info: &'a PanicHookInfo<'_>) -> &'a str {
    info.payload()
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| info.payload().downcast_ref::<String>().map(String::as_str))
        .unwrap_or("")
}

fn is_peer_loss_cascade(info: &PanicHookInfo<'_>) -> bool {
    let thread = std::thread::current();
    let name = thread.name().unwrap_or("");
    if !(name.starts_with("timely:") || name.starts_with("dyngraph-dist")) {
        return false;
    }
    if message(info).starts_with("timely communication error") {
        PEER_LOST.store(true, Ordering::Relaxed);
        return true;
    }
    PEER_LOST.load(Ordering::Relaxed)
}
