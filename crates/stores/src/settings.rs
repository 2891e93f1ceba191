//! The knobs of particular stores that a registry user picks beyond the
//! shared [`StoreOptions`](dyngraph_core::StoreOptions).

use dyngraph_core::IdMap;
#[cfg(feature = "durable")]
use dyngraph_core::StoreOptions;
use std::path::PathBuf;
use std::sync::Arc;

/// How VCSR spreads the free slots of a rebalanced window: which of
/// `dyngraph_vcsr`'s gap policies (`Even`, `DegreeProportional`,
/// `HistoryAdaptive`) [`StoreKind::Vcsr`](crate::StoreKind) is built with.
/// A name for each policy type, so a command line can pick one; the
/// policies themselves live in the vcsr and pma crates.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum GapPolicyKind {
    /// Evenly.
    Even,
    /// In proportion to each vertex's degree (VCSR's policy).
    #[default]
    #[cfg_attr(feature = "clap", value(name = "degree"))]
    DegreeProportional,
    /// Skewed toward recently hot vertices.
    #[cfg_attr(feature = "clap", value(name = "adaptive"))]
    HistoryAdaptive,
}

/// What a registry user sets beyond [`StoreOptions`]: VCSR's gap policy,
/// and for the durable store where it lives and how it syncs. Stores
/// ignore the knobs that are not theirs; the durable store's own options
/// are [`StoreSettings::durable_options`], built from these.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StoreSettings {
    /// VCSR's gap policy.
    pub gap_policy: GapPolicyKind,
    /// Where the durable store keeps its files; `None`: a temporary
    /// directory removed when the store is dropped.
    pub durable_dir: Option<PathBuf>,
    /// When the durable store makes updates durable.
    #[cfg(feature = "durable")]
    pub sync: dyngraph_durable::SyncPolicy,
    /// A `durable_dir` that already holds a store is opened and appended
    /// to (after recovery, if its last run crashed) instead of refused.
    pub append: bool,
    /// Bytes of changed pages the durable store holds in memory before a
    /// checkpoint writes them to its files (`max_changed_bytes` of the
    /// durable options); `None`: its default, half the machine's physical
    /// memory.
    pub durable_memory: Option<u64>,
    /// The key map the durable store keeps beside its edges (`keys` of
    /// the durable options): the replay job sets it from the input's
    /// relabelled ids, mapped through the kept store's keys on an append.
    pub durable_keys: Option<Arc<IdMap>>,
}

#[cfg(feature = "durable")]
impl StoreSettings {
    /// The durable store's options for `shared` and these settings.
    pub fn durable_options(&self, shared: StoreOptions) -> dyngraph_durable::DurableOptions {
        let mut options = dyngraph_durable::DurableOptions::from(shared)
            .sync(self.sync)
            .append(self.append)
            .keys(self.durable_keys.clone());
        if let Some(dir) = &self.durable_dir {
            options = options.dir(dir);
        }
        if let Some(bytes) = self.durable_memory {
            // Checkpoints of that many changed pages go in place (writing
            // those pages) rather than rewriting the arrays.
            let undo = options.max_undo_bytes.max(bytes.saturating_mul(2));
            options = options.max_changed_bytes(bytes).max_undo_bytes(undo);
        }
        options
    }
}
