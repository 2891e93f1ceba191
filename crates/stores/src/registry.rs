//! The registry: every store of the contract by name, and the one place
//! that turns a name into a store type.

use crate::settings::StoreSettings;
use dyngraph_core::{Capabilities, CsrRebuild, DynamicStore, Error, Result, StoreOptions};
use std::fmt;
use std::str::FromStr;

/// Generic work to run on the store type a [`StoreKind`] names.
pub trait StoreVisitor {
    /// What the work returns.
    type Output;

    /// Runs on store type `S` (every store of the registry owns its data:
    /// `'static`, and its options can go to other threads: a cluster's
    /// workers build their own), built with `options` (whose shared part,
    /// [`StoreConfig::shared`](dyngraph_core::StoreConfig::shared), holds
    /// the capabilities asked for). An implementation that needs neither
    /// bound may leave the `where` clause out.
    fn visit<S: DynamicStore + 'static>(self, options: S::Options) -> Self::Output
    where
        S::Options: Send + Sync;
}

/// The registry's list: each entry is the kind, the feature that brings
/// it (none: always there), its name on the command line and in reports,
/// its docs, and how its options are built from the settings before the
/// visitor runs on its type.
macro_rules! stores {
    (
        |$settings:ident, $shared:ident, $visitor:ident|
        $(
            $(#[doc = $doc:literal])*
            $(#[cfg($cfg:meta)])?
            $kind:ident = $name:literal => $visit:block
        )*
    ) => {
        /// A store of the contract, by name: the registry's key. The CLI,
        /// the replay job, `dyngraph-dist`, the benches and the every-store
        /// tests dispatch through [`StoreKind::visit`]: generic code
        /// written once as a [`StoreVisitor`] runs on the store type a kind
        /// names, built with options from [`StoreSettings`];
        /// [`StoreKind::capabilities`] reads the type's
        /// `GraphStore::CAPABILITIES`. Adding a store is its crate, one
        /// entry of the registry's list and one feature line.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
        pub enum StoreKind {
            $(
                $(#[doc = $doc])*
                $(#[cfg($cfg)])?
                #[cfg_attr(feature = "clap", value(name = $name))]
                $kind,
            )*
        }

        impl StoreKind {
            /// Every store this build has, in the registry's order.
            pub const ALL: &'static [StoreKind] = &[$($(#[cfg($cfg)])? StoreKind::$kind),*];

            /// The store's name on the command line and in reports.
            pub const fn name(self) -> &'static str {
                match self {
                    $($(#[cfg($cfg)])? StoreKind::$kind => $name,)*
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
                // A build with no store that reads the settings (only the
                // rebuild baseline) leaves them unused.
                let _ = &$settings;
                match self {
                    $($(#[cfg($cfg)])? StoreKind::$kind => $visit,)*
                }
            }
        }
    };
}

stores! {
    |settings, shared, visitor|
    /// VCSR: CSR on a vertex-centric packed-memory array (gap policy from
    /// the settings).
    #[cfg(feature = "vcsr")]
    Vcsr = "vcsr" => {
        use dyngraph_vcsr::{DegreeProportional, Even, HistoryAdaptive, Vcsr, VcsrOptions};
        use crate::settings::GapPolicyKind;
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
    #[cfg(feature = "vcsr")]
    Pcsr = "pcsr" => { visitor.visit::<dyngraph_vcsr::Pcsr>(shared) }
    /// Blocked adjacency list, 512-edge blocks.
    #[cfg(feature = "vcsr")]
    Bal = "bal" => { visitor.visit::<dyngraph_vcsr::Bal>(shared) }
    /// CSR++: segments of vertices with their own sorted edge arrays;
    /// concurrent writers.
    #[cfg(feature = "csrpp")]
    Csrpp = "csrpp" => {
        use dyngraph_csrpp::{CsrPP, CsrPPOptions};
        visitor.visit::<CsrPP>(CsrPPOptions::from(shared))
    }
    /// `Csr` rebuilt from scratch after every batch: the cost dynamic
    /// stores exist to avoid.
    CsrRebuild = "csr-rebuild" => { visitor.visit::<CsrRebuild>(shared) }
    /// Durable VCSR (DGAP) in files (directory, sync policy, memory bound
    /// and key map from the settings).
    #[cfg(feature = "durable")]
    Durable = "durable" => {
        visitor.visit::<dyngraph_durable::DurableVcsr>(settings.durable_options(shared))
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

    /// The stores that run distributed ([`Capabilities::distributable`]).
    pub fn distributable() -> impl Iterator<Item = StoreKind> {
        Self::ALL
            .iter()
            .copied()
            .filter(|kind| kind.capabilities().distributable)
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
                .contains("csr-rebuild")
        );
    }

    #[cfg(all(feature = "vcsr", feature = "durable"))]
    #[test]
    fn capabilities_come_from_the_contract() {
        assert_eq!(
            StoreKind::Vcsr.capabilities(),
            <dyngraph_vcsr::Vcsr as GraphStore>::CAPABILITIES
        );
        assert!(StoreKind::Durable.capabilities().durable);
        assert!(!StoreKind::Durable.capabilities().distributable);
        assert!(!StoreKind::distributable().any(|k| k == StoreKind::Durable));
        let (fitted, notes) = StoreKind::Durable.fit(StoreOptions::default().in_edges(true));
        assert!(fitted.in_edges && notes.is_empty(), "{notes:?}");
        let (fitted, notes) = StoreKind::Vcsr.fit(StoreOptions::default().in_edges(true));
        assert!(fitted.in_edges && notes.is_empty());
    }

    #[test]
    fn the_rebuild_baseline_is_in_every_build() {
        assert!(StoreKind::ALL.contains(&StoreKind::CsrRebuild));
        assert_eq!(
            StoreKind::CsrRebuild.capabilities(),
            <CsrRebuild as GraphStore>::CAPABILITIES
        );
    }
}
