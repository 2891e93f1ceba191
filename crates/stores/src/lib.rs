//! `dyngraph-stores`: the set of stores, the concept dyngraph is about, in
//! one place. [`StoreKind`] names every store of the contract (`vcsr`,
//! `pcsr`, `bal`, `csrpp`, `csr-rebuild`, `durable`); [`StoreKind::visit`]
//! runs generic code, written once as a [`StoreVisitor`], on the store
//! type a kind names, built with options from [`StoreSettings`]; what a
//! store can do (in-edges, weights, durable, distributable, concurrent
//! writers) is its [`GraphStore::CAPABILITIES`](dyngraph_core::GraphStore::CAPABILITIES),
//! read through the same visitor, never restated.
//!
//! The replay job, `dyngraph-dist`, the CLI, the benches and the
//! every-store tests dispatch through it and depend on no store crate of
//! their own; each store comes with its feature (`vcsr` for VCSR, PCSR
//! and BAL; `csrpp`; `durable`, which brings [`KeptStore`], the checks on
//! a kept store's directory). Adding a store is its crate, one entry of
//! the registry's list and one feature line (CONTRIBUTING.md).
//!
//! ```
//! use dyngraph_core::{DynamicStore, GraphStore, StoreOptions};
//! use dyngraph_stores::{StoreKind, StoreSettings, StoreVisitor};
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
#![deny(missing_docs)]

#[cfg(feature = "durable")]
mod kept;
mod registry;
mod settings;

#[cfg(feature = "durable")]
pub use kept::KeptStore;
pub use registry::{StoreKind, StoreVisitor};
pub use settings::{GapPolicyKind, StoreSettings};
