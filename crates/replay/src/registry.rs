//! The store registry: every store of the contract by name, with what it
//! can do, and the one place that turns a name into a store type.
//!
//! The CLI, the replay job, `dyngraph-dist` and the benches all dispatch
//! through [`StoreKind::visit`]: generic code is written once as a
//! [`StoreVisitor`] and runs on the store type a [`StoreKind`] names, built
//! with options from [`StoreSettings`]. What a store can do (in-edges,
//! weights, durable, distributable, concurrent writers) is its
//! [`GraphStore::CAPABILITIES`](dyngraph_core::GraphStore::CAPABILITIES), read here through the same visitor, never
//! restated. Adding a store is one entry of the `stores!` list below.
//!
//! ```
//! use dyngraph_core::{DynamicStore, GraphStore, StoreOptions};
//! use dyngraph_replay::{StoreKind, StoreSettings, StoreVisitor};
//!
//! struct Name;
//! impl StoreVisitor for Name {
//!     type Output = &'static str;
//!     fn visit<S: DynamicStore + 'static>(self, _: S::Options) -> &'static str {
//!         S::NAME
//!     }
//! }
//! let kind: StoreKind = "csrpp".parse()?;
//! assert_eq!(kind.visit(&StoreSettings::default(), StoreOptions::default(), Name), "CsrPP");
//! assert!(kind.capabilities().concurrent_writers);
//! assert!(!StoreKind::Durable.capabilities().distributable);
//! # Ok::<(), dyngraph_core::Error>(())
//! ```

use dyngraph_core::{Capabilities, CsrRebuild, DynamicStore, Error, IdMap, Result, StoreOptions};
use dyngraph_csrpp::{CsrPP, CsrPPOptions};
use dyngraph_durable::{DurableOptions, DurableVcsr, SyncPolicy};
use dyngraph_vcsr::{Bal, DegreeProportional, Even, HistoryAdaptive, Pcsr, Vcsr, VcsrOptions};
use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::Arc;

/// Generic work to run on the store type a [`StoreKind`] names.
pub trait StoreVisitor {
    /// What the work returns.
    type Output;

    /// Runs on store type `S` (every store of the registry owns its data:
    /// `'static`), built with `options` (whose shared part,
    /// [`StoreConfig::shared`](dyngraph_core::StoreConfig::shared), holds the capabilities asked for).
    fn visit<S: DynamicStore + 'static>(self, options: S::Options) -> Self::Output;
}

/// How VCSR spreads the free slots of a rebalanced window
/// (`dyngraph_vcsr`'s gap policies).
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

/// The knobs of particular stores that a registry user picks beyond
/// [`StoreOptions`]: VCSR's gap policy, the durable store's directory and
/// sync policy. Stores ignore the knobs that are not theirs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StoreSettings {
    /// VCSR's gap policy.
    pub gap_policy: GapPolicyKind,
    /// Where the durable store keeps its files; `None`: a temporary
    /// directory removed when the store is dropped.
    pub durable_dir: Option<PathBuf>,
    /// When the durable store makes updates durable.
    pub sync: SyncPolicy,
    /// A `durable_dir` that already holds a store is opened and appended
    /// to (after recovery, if its last run crashed) instead of refused.
    pub append: bool,
    /// The key map the durable store keeps beside its edges
    /// ([`DurableOptions::keys`]): the replay job sets it from the input's
    /// relabelled ids, mapped through the kept store's keys on an append.
    pub durable_keys: Option<Arc<IdMap>>,
    /// Bytes of changed pages the durable store holds in memory before a
    /// checkpoint writes them to its files
    /// ([`DurableOptions::max_changed_bytes`]); `None`: its default, half
    /// the machine's physical memory.
    pub durable_memory: Option<u64>,
}

/// The registry's list: each entry is the kind, its name on the command
/// line and in reports, its docs, and how its options are built from the
/// settings before the visitor runs on its type.
macro_rules! stores {
    (
        |$settings:ident, $shared:ident, $visitor:ident|
        $(
            $(#[doc = $doc:literal])*
            $kind:ident = $name:literal => $visit:block
        )*
    ) => {
        /// A store of the contract, by name: the registry's key. The CLI,
        /// the replay job, `dyngraph-dist` and the benches dispatch through
        /// [`StoreKind::visit`]: generic code written once as a
        /// [`StoreVisitor`] runs on the store type a kind names, built with
        /// options from [`StoreSettings`]; [`StoreKind::capabilities`] reads
        /// the type's `GraphStore::CAPABILITIES`. Adding a store is one
        /// entry of the registry's list.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
        pub enum StoreKind {
            $(
                $(#[doc = $doc])*
                #[cfg_attr(feature = "clap", value(name = $name))]
                $kind,
            )*
        }

        impl StoreKind {
            /// Every store, in the registry's order.
            pub const ALL: &'static [StoreKind] = &[$(StoreKind::$kind),*];

            /// The store's name on the command line and in reports.
            pub const fn name(self) -> &'static str {
                match self {
                    $(StoreKind::$kind => $name,)*
                }
            }

            /// Runs `visitor` on the store type this kind names, with its
            /// options built from `shared` and `settings`.
            pub fn visit<V: StoreVisitor>(
                self,
                $settings: &StoreSettings,
                $shared: StoreOptions,
                $visitor: V,
            ) -> V::Output {
                match self {
                    $(StoreKind::$kind => $visit,)*
                }
            }
        }
    };
}

stores! {
    |settings, shared, visitor|
    /// VCSR: CSR on a vertex-centric packed-memory array (gap policy from
    /// the settings).
    Vcsr = "vcsr" => {
        let options = VcsrOptions::from(shared);
        match settings.gap_policy {
            GapPolicyKind::Even => visitor.visit::<Vcsr<Even>>(options.policy(Even)),
            GapPolicyKind::DegreeProportional => visitor.visit::<Vcsr<DegreeProportional>>(options),
            GapPolicyKind::HistoryAdaptive => {
                visitor.visit::<Vcsr<HistoryAdaptive>>(options.policy(HistoryAdaptive::default()))
            }
        }
    }
    /// PCSR: every edge in one packed-memory array with even gaps.
    Pcsr = "pcsr" => { visitor.visit::<Pcsr>(shared) }
    /// Blocked adjacency list, 512-edge blocks.
    Bal = "bal" => { visitor.visit::<Bal>(shared) }
    /// CSR++: segments of vertices with their own sorted edge arrays;
    /// concurrent writers.
    Csrpp = "csrpp" => { visitor.visit::<CsrPP>(CsrPPOptions::from(shared)) }
    /// `Csr` rebuilt from scratch after every batch: the cost dynamic
    /// stores exist to avoid.
    CsrRebuild = "csr-rebuild" => { visitor.visit::<CsrRebuild>(shared) }
    /// Durable VCSR (DGAP) in files (directory and sync policy from the
    /// settings).
    Durable = "durable" => {
        let mut options = DurableOptions::from(shared)
            .sync(settings.sync)
            .append(settings.append)
            .keys(settings.durable_keys.clone());
        if let Some(dir) = &settings.durable_dir {
            options = options.dir(dir);
        }
        if let Some(bytes) = settings.durable_memory {
            // Checkpoints of that many changed pages go in place (writing
            // those pages) rather than rewriting the arrays.
            let undo = options.max_undo_bytes.max(bytes.saturating_mul(2));
            options = options.max_changed_bytes(bytes).max_undo_bytes(undo);
        }
        visitor.visit::<DurableVcsr>(options)
    }
}

impl StoreKind {
    /// What the store can do: its [`GraphStore::CAPABILITIES`](dyngraph_core::GraphStore::CAPABILITIES).
    pub fn capabilities(self) -> Capabilities {
        struct Read;
        impl StoreVisitor for Read {
            type Output = Capabilities;
            fn visit<S: DynamicStore + 'static>(self, _: S::Options) -> Capabilities {
                S::CAPABILITIES
            }
        }
        self.visit(&StoreSettings::default(), StoreOptions::default(), Read)
    }

    /// The store type's own name (`"Vcsr"`, `"CsrPP"`, ...): its
    /// [`GraphStore::NAME`](dyngraph_core::GraphStore::NAME).
    pub fn type_name(self) -> &'static str {
        struct Read;
        impl StoreVisitor for Read {
            type Output = &'static str;
            fn visit<S: DynamicStore + 'static>(self, _: S::Options) -> &'static str {
                S::NAME
            }
        }
        self.visit(&StoreSettings::default(), StoreOptions::default(), Read)
    }

    /// `shared` with what this store cannot keep turned off, and a note for
    /// each capability dropped (e.g. in-edges on a store that keeps none),
    /// so callers say so instead of failing at build time.
    pub fn fit(self, mut shared: StoreOptions) -> (StoreOptions, Vec<String>) {
        let capabilities = self.capabilities();
        let mut notes = Vec::new();
        if shared.in_edges && !capabilities.in_edges {
            shared.in_edges = false;
            notes.push(format!(
                "{} keeps no in-edges: its kernels run without them (PageRank pushes, BFS is top-down)",
                self.name()
            ));
        }
        if shared.weighted && !capabilities.weights {
            shared.weighted = false;
            notes.push(format!(
                "{} keeps no weights: they are dropped",
                self.name()
            ));
        }
        (shared, notes)
    }
}

impl fmt::Display for StoreKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for StoreKind {
    type Err = Error;

    /// A store's [`StoreKind::name`], or its type name in any case
    /// (`CsrPP`, `vcsr`, `csr-rebuild`).
    fn from_str(text: &str) -> Result<Self> {
        StoreKind::ALL
            .iter()
            .copied()
            .find(|kind| {
                kind.name() == text
                    || kind.type_name().eq_ignore_ascii_case(text)
                    || kind.name().replace('-', "").eq_ignore_ascii_case(text)
            })
            .ok_or_else(|| {
                let names: Vec<&str> = StoreKind::ALL.iter().map(|k| k.name()).collect();
                Error::InvalidArgument(format!(
                    "unknown store {text:?}: expected one of {}",
                    names.join(", ")
                ))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dyngraph_core::GraphStore;

    #[test]
    fn every_store_is_listed_once_and_parses_back() {
        for &kind in StoreKind::ALL {
            assert_eq!(kind.name().parse::<StoreKind>().unwrap(), kind);
            assert_eq!(kind.type_name().parse::<StoreKind>().unwrap(), kind);
            assert_eq!(
                StoreKind::ALL
                    .iter()
                    .filter(|k| k.name() == kind.name())
                    .count(),
                1
            );
        }
        assert!(
            "nope"
                .parse::<StoreKind>()
                .unwrap_err()
                .to_string()
                .contains("vcsr")
        );
    }

    #[test]
    fn capabilities_come_from_the_contract() {
        assert_eq!(
            StoreKind::Vcsr.capabilities(),
            <Vcsr as GraphStore>::CAPABILITIES
        );
        assert!(StoreKind::Durable.capabilities().durable);
        assert!(!StoreKind::Durable.capabilities().distributable);
        let (fitted, notes) = StoreKind::Durable.fit(StoreOptions::default().in_edges(true));
        assert!(fitted.in_edges && notes.is_empty(), "{notes:?}");
        let (fitted, notes) = StoreKind::Vcsr.fit(StoreOptions::default().in_edges(true));
        assert!(fitted.in_edges && notes.is_empty());
    }
}
