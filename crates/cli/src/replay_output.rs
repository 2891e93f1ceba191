//! `replay --output DIR`: every checkpoint's kernel results, static or
//! maintained, one file per store, kernel and checkpoint with one row per
//! vertex (the columns of `run --output`, vertices named by their original
//! ids or keys), and `DIR/checkpoints.csv`, one row per file: store,
//! kernel, batches, arrivals, maintained, file. A user's pandas reads the
//! index, then the files it names.
//!
//! The directory must be new or empty, so that no file of the user's is
//! written over and the index names every file in it. Each file is
//! written whole or not at all; the index is written last, so a replay
//! that failed part-way leaves whole checkpoint files and no index.

use crate::names::Names;
use crate::per_vertex::{self, Format};
use anyhow::{Context, Result, bail};
use dyngraph::kernels::KernelName;
use dyngraph::replay::CheckpointResult;
use std::path::{Path, PathBuf};

/// One written file, a row of the index.
#[derive(Debug)]
struct Written {
    store: &'static str,
    kernel: KernelName,
    batches: usize,
    arrivals: usize,
    maintained: bool,
    file: String,
}

/// The directory checkpoint results go to.
#[derive(Debug)]
pub(crate) struct ResultsDir {
    dir: PathBuf,
    format: Format,
    written: Vec<Written>,
}

impl ResultsDir {
    /// Checks `dir` before any work and creates it: it must be new or
    /// empty, and the kernels must have per-vertex values.
    pub(crate) fn create(dir: &Path, format: Format, kernels: &[KernelName]) -> Result<Self> {
        if kernels.is_empty() {
            bail!(
                "--output {}: no kernel runs, so there are no results to write: add --kernel \
                 (e.g. --kernel pr,cc) and --every N for checkpoints along the replay",
                dir.display()
            );
        }
        if kernels.contains(&KernelName::Triangles) {
            bail!(
                "--output {}: tc counts the whole graph's triangles and has no per-vertex value \
                 (its count is in the report); leave it out of --kernel or leave out --output",
                dir.display()
            );
        }
        match std::fs::read_dir(dir) {
            Ok(mut entries) => {
                if let Some(entry) = entries.next() {
                    let name = entry
                        .map(|e| e.file_name().to_string_lossy().into_owned())
                        .unwrap_or_default();
                    bail!(
                        "--output {}: the directory holds files already (such as {name:?}); \
                         give a new or empty directory, so that nothing there is written over",
                        dir.display()
                    );
                }
            }
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                std::fs::create_dir_all(dir)
                    .with_context(|| format!("--output {}: cannot create it", dir.display()))?;
            }
            Err(error) => {
                return Err(error).with_context(|| {
                    format!(
                        "--output {}: not a directory that can be read",
                        dir.display()
                    )
                });
            }
        }
        Ok(Self {
            dir: dir.to_path_buf(),
            format,
            written: Vec::new(),
        })
    }

    /// Writes one checkpoint's result.
    pub(crate) fn write(&mut self, result: &CheckpointResult<'_>) -> Result<()> {
        let extension = match self.format {
            Format::Csv => "csv",
            Format::JsonLines => "jsonl",
        };
        // Zero-padded so that a listing sorts by batch.
        let file = format!(
            "{}-{}-batch{:06}.{extension}",
            result.store.name(),
            result.kernel.as_str(),
            result.batches
        );
        let vertices = per_vertex::vertex_count(result.output);
        let names = Names::new(result.ids, vertices);
        per_vertex::write(
            &self.dir.join(&file),
            self.format,
            result.output,
            &names,
            vertices,
        )?;
        self.written.push(Written {
            store: result.store.name(),
            kernel: result.kernel,
            batches: result.batches,
            arrivals: result.arrivals,
            maintained: result.maintained,
            file,
        });
        Ok(())
    }

    /// Writes the index, `checkpoints.csv`; returns its path.
    pub(crate) fn finish(self) -> Result<PathBuf> {
        let path = self.dir.join("checkpoints.csv");
        crate::output::write(&path, |out| {
            let mut csv = csv::Writer::from_writer(out);
            csv.write_record([
                "store",
                "kernel",
                "batches",
                "arrivals",
                "maintained",
                "file",
            ])?;
            for row in &self.written {
                csv.write_record([
                    row.store,
                    row.kernel.as_str(),
                    &row.batches.to_string(),
                    &row.arrivals.to_string(),
                    if row.maintained { "true" } else { "false" },
                    &row.file,
                ])?;
            }
            csv.flush()
        })?;
        Ok(path)
    }
}
