//! Progress on long work, on a terminal only: indicatif draws to stderr and
//! hides itself when stderr is not a terminal, so nothing reaches a pipe or
//! a file.

use dyngraph::loader::{LoadOptions, ParseProgress};
use indicatif::{ProgressBar, ProgressStyle};
use std::ops::Deref;
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::Duration;

/// A bar or spinner that clears itself when dropped, so an error printed
/// after it (an early return) starts on a clean line.
pub(crate) struct Progress(ProgressBar);

impl Deref for Progress {
    type Target = ProgressBar;

    fn deref(&self) -> &ProgressBar {
        &self.0
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.0.finish_and_clear();
    }
}

/// A bar over `total` edges: phase, edges done, rate and ETA.
pub(crate) fn edge_bar(phase: &str, total: u64) -> Progress {
    let bar = ProgressBar::new(total);
    bar.set_style(
        ProgressStyle::with_template(
            "{prefix:>12} [{bar:40}] {human_pos}/{human_len} edges {per_sec} eta {eta}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> "),
    );
    bar.set_prefix(phase.to_string());
    Progress(bar)
}

/// A spinner for a phase whose size is not known ahead (a parse, a
/// build): its name and the time spent, redrawn in the background.
pub(crate) fn phase_spinner(phase: &str) -> Progress {
    let spinner = ProgressBar::new_spinner();
    spinner.set_style(
        ProgressStyle::with_template("{spinner} {msg} {elapsed}")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    spinner.set_message(phase.to_string());
    spinner.enable_steady_tick(Duration::from_millis(200));
    Progress(spinner)
}

/// Keeps a parse's progress on screen until dropped (see [`watch_parse`]).
pub(crate) struct ParseWatch(Option<(Sender<()>, JoinHandle<()>)>);

impl Drop for ParseWatch {
    fn drop(&mut self) {
        if let Some((stop, thread)) = self.0.take() {
            drop(stop);
            let _ = thread.join();
        }
    }
}

/// While the returned guard lives, `spinner` shows the text parse that
/// `options` (returned counting into it) runs: a bar over the text's bytes
/// (done, rate, ETA) from the moment the loader knows their number, the
/// spinner again once every byte is parsed (the build that follows has
/// no count to show). A hidden spinner (stderr not a terminal) gets no
/// counter and no thread. A binary input is mapped, not parsed: the
/// spinner stays as it is.
pub(crate) fn watch_parse(spinner: &Progress, options: LoadOptions) -> (LoadOptions, ParseWatch) {
    if spinner.is_hidden() {
        return (options, ParseWatch(None));
    }
    let counts = ParseProgress::new();
    let options = options.progress(counts.clone());
    let bar = spinner.0.clone();
    let (stop, stopped) = mpsc::channel::<()>();
    let thread = std::thread::spawn(move || {
        let spinner_style = bar.style();
        let mut showing_bytes = false;
        // Redrawn five times a second until the guard drops the sender.
        while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(Duration::from_millis(200))
        {
            let (total, parsed) = (counts.total_bytes(), counts.parsed_bytes());
            let parsing = total > 0 && parsed < total;
            if parsing && !showing_bytes {
                bar.disable_steady_tick();
                bar.set_style(byte_style());
                bar.set_length(total);
                showing_bytes = true;
            } else if !parsing && showing_bytes {
                bar.set_style(spinner_style.clone());
                bar.enable_steady_tick(Duration::from_millis(200));
                showing_bytes = false;
            }
            if showing_bytes {
                bar.set_position(parsed);
            }
        }
        if showing_bytes {
            bar.set_style(spinner_style);
            bar.enable_steady_tick(Duration::from_millis(200));
        }
    });
    (options, ParseWatch(Some((stop, thread))))
}

/// A bar over the bytes of a text being parsed.
fn byte_style() -> ProgressStyle {
    ProgressStyle::with_template(
        "{msg} [{bar:30}] {binary_bytes}/{binary_total_bytes} {binary_bytes_per_sec} eta {eta}",
    )
    .unwrap_or_else(|_| ProgressStyle::default_bar())
    .progress_chars("=> ")
}
