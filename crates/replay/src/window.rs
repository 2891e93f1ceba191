//! Sliding windows: arrivals leave the graph as the stream advances.

use dyngraph_core::{Edge, Semantics, VertexId};
use dyngraph_loader::EdgeStream;
use std::collections::HashSet;
use std::ops::Range;

/// A sliding window: arrivals older than this are deleted as the stream
/// advances, in arrival order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Window {
    /// Delete an edge once the newest timestamp is more than this many
    /// timestamp units past its own.
    Time(u64),
    /// Keep only the newest this-many arrivals.
    Edges(u64),
}

impl std::fmt::Display for Window {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Window::Time(units) => write!(f, "{units}"),
            Window::Edges(edges) => write!(f, "{edges}edges"),
        }
    }
}

impl std::str::FromStr for Window {
    type Err = String;

    /// `3600` (timestamp units) or `5000edges` / `5000 edges`.
    fn from_str(text: &str) -> Result<Self, String> {
        let text = text.trim();
        let (number, edges) = match text.strip_suffix("edges") {
            Some(number) => (number.trim(), true),
            None => (text, false),
        };
        let value: u64 = number.parse().map_err(|_| {
            format!(
                "'{text}' is not a window: give a number of timestamp units (e.g. 86400) \
                 or a number of edges (e.g. 5000edges)"
            )
        })?;
        Ok(if edges {
            Window::Edges(value)
        } else {
            Window::Time(value)
        })
    }
}

/// Which arrivals are live, for deleting them when they leave the window.
pub(crate) struct WindowState {
    window: Window,
    /// Next arrival (stream index) to expire.
    cursor: usize,
    /// Newest timestamp seen, for time windows.
    newest: u64,
    /// Under simple semantics, which arrivals inserted an edge.
    effective: Option<SetTracking>,
}

/// Under simple semantics a repeat of a present edge inserts nothing, so
/// its expiry must delete nothing: which arrivals inserted their edge, and
/// which edges are present.
struct SetTracking {
    inserted: Vec<bool>,
    present: HashSet<(VertexId, VertexId)>,
}

impl WindowState {
    pub(crate) fn new(window: Window, semantics: Semantics, len: usize) -> Self {
        let effective = (semantics == Semantics::Simple).then(|| SetTracking {
            inserted: vec![false; len],
            present: HashSet::new(),
        });
        Self {
            window,
            cursor: 0,
            newest: 0,
            effective,
        }
    }

    /// Notes arrivals `range` as inserted.
    pub(crate) fn arrive(&mut self, stream: &EdgeStream, range: Range<usize>) {
        if let Some(timestamps) = stream.timestamps() {
            self.newest = timestamps[range.clone()]
                .iter()
                .copied()
                .fold(self.newest, u64::max);
        }
        if let Some(tracking) = &mut self.effective {
            let (src, dst) = (stream.src(), stream.dst());
            for i in range {
                tracking.inserted[i] = tracking.present.insert((src[i], dst[i]));
            }
        }
    }

    /// The edges leaving the window once arrivals `..arrived` are in.
    pub(crate) fn expire(&mut self, stream: &EdgeStream, arrived: usize, out: &mut Vec<Edge>) {
        out.clear();
        let (src, dst, timestamps) = (stream.src(), stream.dst(), stream.timestamps());
        while self.cursor < arrived {
            let expired = match self.window {
                Window::Edges(keep) => (arrived - self.cursor) as u64 > keep,
                Window::Time(span) => {
                    timestamps.is_some_and(|t| self.newest.saturating_sub(t[self.cursor]) > span)
                }
            };
            if !expired {
                break;
            }
            let i = self.cursor;
            let deletes = match &mut self.effective {
                Some(tracking) => {
                    tracking.inserted[i] && tracking.present.remove(&(src[i], dst[i]))
                }
                None => true,
            };
            if deletes {
                out.push(Edge::new(src[i], dst[i]));
            }
            self.cursor += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_parses_time_units_and_edge_counts() {
        assert_eq!("3600".parse::<Window>().unwrap(), Window::Time(3600));
        assert_eq!("50edges".parse::<Window>().unwrap(), Window::Edges(50));
        assert_eq!("50 edges".parse::<Window>().unwrap(), Window::Edges(50));
        assert!(
            "soon"
                .parse::<Window>()
                .unwrap_err()
                .contains("not a window")
        );
        assert_eq!(Window::Edges(5).to_string(), "5edges");
    }
}
