//! [`ParseProgress`]: how far a text parse has got, for whoever shows it.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// The bytes of text a load has parsed and the bytes it parses in all,
/// shared between the load and whoever shows its progress: a terminal's
/// bar polls it from another thread while the parse runs. Clones share the
/// counts.
///
/// The total is known once the input is open (a gzip file's after it is
/// decompressed) and is 0 before; binary inputs, which are mapped rather
/// than parsed, leave both at 0.
///
/// ```
/// use dyngraph_loader::{LoadOptions, ParseProgress, parse_edge_stream};
/// let progress = ParseProgress::new();
/// let options = LoadOptions::default().progress(progress.clone());
/// parse_edge_stream(b"0 1\n1 2\n", &options).unwrap();
/// assert_eq!(progress.total_bytes(), 8);
/// assert_eq!(progress.parsed_bytes(), 8);
/// ```
#[derive(Clone, Debug, Default)]
pub struct ParseProgress(Arc<Counts>);

#[derive(Debug, Default)]
struct Counts {
    total: AtomicU64,
    parsed: AtomicU64,
}

impl ParseProgress {
    /// Counts at 0.
    pub fn new() -> Self {
        Self::default()
    }

    /// The bytes the parse reads in all (0 until the input is open).
    pub fn total_bytes(&self) -> u64 {
        self.0.total.load(Ordering::Relaxed)
    }

    /// The bytes parsed so far: whole blocks, in any order.
    pub fn parsed_bytes(&self) -> u64 {
        self.0.parsed.load(Ordering::Relaxed)
    }

    /// A parse of `total` bytes begins.
    pub(crate) fn start(&self, total: usize) {
        self.0.parsed.store(0, Ordering::Relaxed);
        self.0.total.store(total as u64, Ordering::Relaxed);
    }

    /// A block of `bytes` bytes is parsed.
    pub(crate) fn add(&self, bytes: usize) {
        self.0.parsed.fetch_add(bytes as u64, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use crate::{IdMode, LoadOptions, ParseProgress, parse_edge_stream};

    /// Small blocks make a parse of many blocks on several threads; every
    /// block is counted once, on both the dense and the relabelling path,
    /// and a second parse with the same counter starts again from 0.
    #[test]
    fn every_block_of_a_parse_is_counted_once() {
        let text: String = (0..5_000).map(|i| format!("{i} {}\n", i + 1)).collect();
        for ids in [IdMode::Keep, IdMode::Integers, IdMode::Strings] {
            let progress = ParseProgress::new();
            let mut options = LoadOptions::default().ids(ids).progress(progress.clone());
            options.block_size = 64;
            for _ in 0..2 {
                let stream = parse_edge_stream(text.as_bytes(), &options).unwrap();
                assert_eq!(stream.len(), 5_000);
                assert_eq!(progress.total_bytes(), text.len() as u64, "{ids:?}");
                assert_eq!(progress.parsed_bytes(), text.len() as u64, "{ids:?}");
            }
        }
    }
}
