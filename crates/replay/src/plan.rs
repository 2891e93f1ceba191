//! Which capabilities a replay's stores keep: only what the input and the
//! requested kernels need, so a replay measures the store, not work nobody
//! asked for.

use dyngraph_core::{Semantics, StoreOptions};
use dyngraph_kernels::{KernelName, Need};

/// Keep a capability: decide from the kernels and input, or force it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Choice {
    /// In-edges when a requested kernel uses them; weights when the input
    /// has them.
    #[default]
    Auto,
    /// Always.
    On,
    /// Never.
    Off,
}

/// The store options a replay uses, with the reason for each choice (for
/// the report).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StorePlan {
    /// The options every store is built with.
    pub options: StoreOptions,
    /// Why in-edges are kept or not.
    pub in_edges_reason: String,
    /// Why weights are kept or not.
    pub weights_reason: String,
}

/// Decides the capabilities: in-edges under [`Choice::Auto`] when some
/// kernel in `kernels` uses them ([`KernelName::needs`]); weights under
/// `Auto` when the input has them.
///
/// ```
/// use dyngraph_core::Semantics;
/// use dyngraph_kernels::KernelName;
/// use dyngraph_replay::{Choice, plan};
/// let pull = plan(Semantics::Multigraph, Choice::Auto, Choice::Auto, &[KernelName::PageRank], false);
/// assert!(pull.options.in_edges && !pull.options.weighted);
/// let inserts_only = plan(Semantics::Multigraph, Choice::Auto, Choice::Auto, &[], true);
/// assert!(!inserts_only.options.in_edges && inserts_only.options.weighted);
/// ```
pub fn plan(
    semantics: Semantics,
    in_edges: Choice,
    weights: Choice,
    kernels: &[KernelName],
    input_weighted: bool,
) -> StorePlan {
    let users: Vec<&str> = kernels
        .iter()
        .filter(|k| k.needs().in_edges != Need::Unused)
        .map(|k| k.as_str())
        .collect();
    let (keep_in, in_edges_reason) = match in_edges {
        Choice::On => (true, "on (asked for)".to_string()),
        Choice::Off => (false, "off (asked for)".to_string()),
        Choice::Auto if users.is_empty() => (false, "off (auto: no kernel uses them)".into()),
        Choice::Auto => (true, format!("on (auto: used by {})", users.join(", "))),
    };
    let (keep_weights, weights_reason) = match weights {
        Choice::On => (true, "on (asked for)".to_string()),
        Choice::Off => (false, "off (asked for)".to_string()),
        Choice::Auto if input_weighted => (true, "on (auto: the input has weights)".into()),
        Choice::Auto => (false, "off (auto: the input has none)".into()),
    };
    StorePlan {
        options: StoreOptions::new(semantics)
            .in_edges(keep_in)
            .weighted(keep_weights),
        in_edges_reason,
        weights_reason,
    }
}
