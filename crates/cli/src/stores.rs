//! The stores the CLI builds, each reached through the store contract: a
//! `--store` value picks the type, and generic code runs on it.

use dyngraph_core::{DynamicStore, StoreOptions};
use dyngraph_csrpp::{CsrPP, CsrPPOptions};
use dyngraph_durable::{DurableOptions, DurableVcsr, SyncPolicy};
use dyngraph_core::CsrRebuild;
use dyngraph_vcsr::{Bal, DegreeProportional, Even, HistoryAdaptive, Pcsr, Vcsr, VcsrOptions};
use std::path::PathBuf;

/// A store selectable with `--store`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, clap::ValueEnum)]
pub(crate) enum StoreKind {
    /// VCSR: CSR on a vertex-centric packed-memory array (`--gap-policy`).
    Vcsr,
    /// PCSR: edges in one packed-memory array with even gaps.
    Pcsr,
    /// Blocked adjacency list, 512-edge blocks.
    Bal,
    /// CSR++: segments of vertices with their own sorted edge arrays.
    Csrpp,
    /// `Csr` rebuilt from scratch after every batch: the cost dynamic stores
    /// exist to avoid.
    CsrRebuild,
    /// Durable VCSR (DGAP) in files under `--dir`, synced per `--sync`.
    Durable,
}

impl StoreKind {
    pub(crate) fn name(self) -> &'static str {
        match self {
            StoreKind::Vcsr => "vcsr",
            StoreKind::Pcsr => "pcsr",
            StoreKind::Bal => "bal",
            StoreKind::Csrpp => "csrpp",
            StoreKind::CsrRebuild => "csr-rebuild",
            StoreKind::Durable => "durable",
        }
    }
}

/// `--gap-policy` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum GapPolicyArg {
    /// Gaps spread evenly.
    Even,
    /// Gaps proportional to vertex degree (VCSR).
    Degree,
    /// Gaps skewed toward recently hot vertices.
    Adaptive,
}

/// What picks a store's own knobs beyond [`StoreOptions`].
#[derive(Clone, Debug)]
pub(crate) struct StoreSettings {
    /// VCSR's gap policy.
    pub(crate) gap_policy: GapPolicyArg,
    /// Where the durable store keeps its files; `None`: a temporary
    /// directory removed when the store is dropped.
    pub(crate) durable_dir: Option<PathBuf>,
    /// When the durable store syncs.
    pub(crate) sync: SyncPolicy,
}

impl Default for StoreSettings {
    fn default() -> Self {
        Self {
            gap_policy: GapPolicyArg::Degree,
            durable_dir: None,
            sync: SyncPolicy::EveryBatch,
        }
    }
}

/// Generic work to run on the store type a `--store` value names.
pub(crate) trait StoreWork {
    type Output;

    /// Runs on store type `S`, built with `options` (which carry `store`,
    /// the capabilities every store shares).
    fn run<S: DynamicStore>(self, options: S::Options, store: StoreOptions) -> Self::Output;
}

/// Runs `work` on the store `kind` names.
pub(crate) fn with_store<W: StoreWork>(
    kind: StoreKind,
    settings: &StoreSettings,
    store: StoreOptions,
    work: W,
) -> W::Output {
    match kind {
        StoreKind::Vcsr => match settings.gap_policy {
            GapPolicyArg::Even => {
                work.run::<Vcsr<Even>>(VcsrOptions::from(store).policy(Even), store)
            }
            GapPolicyArg::Degree => work.run::<Vcsr<DegreeProportional>>(
                VcsrOptions::from(store).policy(DegreeProportional::default()),
                store,
            ),
            GapPolicyArg::Adaptive => work.run::<Vcsr<HistoryAdaptive>>(
                VcsrOptions::from(store).policy(HistoryAdaptive::default()),
                store,
            ),
        },
        StoreKind::Pcsr => work.run::<Pcsr>(store, store),
        StoreKind::Bal => work.run::<Bal>(store, store),
        StoreKind::Csrpp => work.run::<CsrPP>(CsrPPOptions::from(store), store),
        StoreKind::CsrRebuild => work.run::<CsrRebuild>(store, store),
        StoreKind::Durable => {
            let mut options = DurableOptions::from(store).sync(settings.sync);
            if let Some(dir) = &settings.durable_dir {
                options = options.dir(dir);
            }
            work.run::<DurableVcsr>(options, store)
        }
    }
}
