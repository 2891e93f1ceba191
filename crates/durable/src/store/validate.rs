//! The full validation of a live store against its files.

use super::DurableVcsr;
use crate::side::Side;
use dyngraph_core::{Error, Result};

impl DurableVcsr {
    /// Checks everything: every page of the edge arrays and every edge-log
    /// region on disk against its checksum (the last checkpoint, as a
    /// crash would find it); the mapped arrays rescanned (pivots in order,
    /// runs within their slots, log entries checked and chained) and
    /// compared with the DRAM vertex arrays, section fills and density
    /// trees; the edge count against the degrees and the log's count; the
    /// in-edges against the out-edges; the undo log idle. The crash tests
    /// run it after every recovery; `dyngraph recover --check` runs it
    /// through [`DurableVcsr::check_dir`].
    pub fn validate(&self) -> Result<()> {
        self.validate_with(true)
    }

    /// [`DurableVcsr::validate`], with the pass over the files' pages on
    /// disk (`disk`) or without it: a read-only open that restored an
    /// armed undo record in memory has checked the restored pages already,
    /// and the disk still holds the checkpoint the crash cut short (pages
    /// that fail their checksums until `recover` writes the record back).
    pub(crate) fn validate_with(&self, disk: bool) -> Result<()> {
        let fail = |what: String| {
            Err(Error::InvalidStructure(format!(
                "{}: {what}",
                self.dir.display()
            )))
        };
        for side in self.sides() {
            if disk {
                side.verify_disk()?;
            }
            if let Err(e) = validate_side(side) {
                return fail(format!("{:?} edges: {e}", side.kind));
            }
        }
        let live: u64 = self.out.vertices.iter().map(|e| u64::from(e.live)).sum();
        if live != self.applied.edges {
            return fail(format!(
                "degrees add up to {live}, the edge count is {}",
                self.applied.edges
            ));
        }
        let logged = self.wal.appended().lsn + self.pending.len() as u64;
        if !self.read_only && logged != self.applied.lsn {
            return fail(format!(
                "{} updates applied, {logged} logged",
                self.applied.lsn
            ));
        }
        if let Some(inc) = &self.inc {
            if inc.vertices.len() != self.out.vertices.len() {
                return fail(format!(
                    "{} vertices with out-edges, {} with in-edges",
                    self.out.vertices.len(),
                    inc.vertices.len()
                ));
            }
            let mut out_pairs = Vec::with_capacity(self.applied.edges as usize);
            let mut in_pairs = Vec::with_capacity(self.applied.edges as usize);
            for v in 0..self.out.vertices.len() as u32 {
                self.out.for_each_live(v, |d, _| out_pairs.push((v, d)));
                inc.for_each_live(v, |s, _| in_pairs.push((s, v)));
            }
            out_pairs.sort_unstable();
            in_pairs.sort_unstable();
            if out_pairs != in_pairs {
                return fail(format!(
                    "the in-edges ({}) are not the out-edges ({}) transposed",
                    in_pairs.len(),
                    out_pairs.len()
                ));
            }
        }
        if !self.read_only
            && let Some(record) = self.read_undo_header()?
        {
            return fail(format!("the undo log is armed: {record:?}"));
        }
        Ok(())
    }
}

/// The DRAM state of one side against a scan of its mapping.
fn validate_side(side: &Side) -> std::result::Result<(), String> {
    let scanned = side.scan_live().map_err(|e| e.to_string())?;
    if scanned.vertices.len() != side.vertices.len() {
        return Err(format!(
            "{} pivots in the edge array, {} vertices in DRAM",
            scanned.vertices.len(),
            side.vertices.len()
        ));
    }
    for (v, (disk, dram)) in scanned.vertices.iter().zip(&side.vertices).enumerate() {
        if disk != dram {
            return Err(format!(
                "vertex {v}: {disk:?} in the array, {dram:?} in DRAM"
            ));
        }
        if dram.start + 1 + u64::from(dram.array_len) > side.run_limit(v) {
            return Err(format!("vertex {v}: its run overlaps the next pivot"));
        }
        let chain = side.log_chain(v as u32);
        if chain.len() != dram.log_count as usize {
            return Err(format!(
                "vertex {v}: {} log entries on its chain, {} counted",
                chain.len(),
                dram.log_count
            ));
        }
    }
    let sections = side.section_count();
    if scanned.log_used[..] != side.log_used[..sections]
        || scanned.log_fresh[..] != side.log_fresh[..sections]
    {
        return Err("edge-log fill differs between the mapping and DRAM".into());
    }
    if side.tree.leaf_count() != sections.max(1) {
        return Err(format!(
            "density tree over {} leaves for {sections} sections",
            side.tree.leaf_count()
        ));
    }
    if side
        .log_used
        .iter()
        .any(|&u| u as usize > side.log_entry_capacity())
    {
        return Err("an edge log holds more entries than its region".into());
    }
    Ok(())
}
