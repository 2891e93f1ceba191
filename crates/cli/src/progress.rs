//! Progress on long work, on a terminal only: indicatif draws to stderr and
//! hides itself when stderr is not a terminal, so nothing reaches a pipe or
//! a file.

use indicatif::{ProgressBar, ProgressStyle};
use std::ops::Deref;
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
