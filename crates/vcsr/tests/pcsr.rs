//! `Pcsr` through the shared store harness.

mod common;

use dyngraph_core::VertexId;
use dyngraph_vcsr::{Pcsr, StoreOptions};

impl common::Store for Pcsr {
    fn build(options: StoreOptions) -> Self {
        Pcsr::new(options).unwrap()
    }

    fn validate(&self) -> Result<(), String> {
        Pcsr::validate(self).map_err(|e| e.to_string())
    }

    fn has_edge(&self, src: VertexId, dst: VertexId) -> bool {
        Pcsr::has_edge(self, src, dst)
    }
}

store_tests!(Pcsr, 48);
