//! The crate's error type.

use std::fmt;

/// What went wrong in a packed-memory-array call.
///
/// Every fallible public method returns this instead of panicking, so a
/// store built on this crate can turn a bad vertex id into its own error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PmaError {
    /// A [`Thresholds`](crate::Thresholds) or
    /// [`PmaOptions`](crate::PmaOptions) value that the density tree cannot
    /// work with; the string says which bound and why.
    InvalidConfig(String),
    /// A run id at or past [`PackedRuns::run_count`](crate::PackedRuns::run_count).
    RunOutOfRange {
        /// The run that was asked for.
        run: usize,
        /// How many runs exist.
        run_count: usize,
    },
    /// A position at or past the end of a run (for `insert`, past `len`).
    IndexOutOfRange {
        /// The run that was addressed.
        run: usize,
        /// The position that was asked for.
        index: usize,
        /// The run's length.
        len: usize,
    },
    /// The validator found a broken invariant; the string says where. This
    /// is a bug in this crate (or in a user [`GapPolicy`](crate::GapPolicy)
    /// that the layout failed to catch), never a user error.
    Invariant(String),
    /// The array would need more slots than it can address
    /// ([`MAX_CAPACITY`](crate::MAX_CAPACITY)); nothing was changed.
    CapacityLimit {
        /// Slots the operation needed.
        needed: usize,
        /// The most slots the layout holds.
        limit: usize,
    },
}

impl fmt::Display for PmaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PmaError::InvalidConfig(why) => write!(f, "invalid PMA configuration: {why}"),
            PmaError::RunOutOfRange { run, run_count } => {
                write!(f, "run {run} out of range (there are {run_count} runs)")
            }
            PmaError::IndexOutOfRange { run, index, len } => {
                write!(
                    f,
                    "index {index} out of range for run {run} of length {len}"
                )
            }
            PmaError::Invariant(why) => write!(f, "PMA invariant broken: {why}"),
            PmaError::CapacityLimit { needed, limit } => write!(
                f,
                "the array would need {needed} slots, more than its limit of {limit}"
            ),
        }
    }
}

impl std::error::Error for PmaError {}
