//! NetworKit's rows of the incremental tables (issue 37): the same base
//! graph and the same batches that dyngraph's rows took, handed to
//! NetworKit's dynamic algorithms by `benches/peers/networkit_batches.py`
//! (its docstring says what each timed call is), and its final results
//! compared with dyngraph's static runs.
//!
//! NetworKit has dynamic weakly connected components, BFS and Dijkstra;
//! it has no dynamic PageRank, so its row there is its static PageRank
//! recomputed after every batch to the same L1 bound.

use crate::incremental::{BatchKind, Batches, Cell, Input};
use dyngraph::core::VertexId;
use dyngraph::loader::AtomicFile;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// How to run NetworKit, and where its files go.
#[derive(Clone, Debug)]
pub struct NetworKit {
    /// A Python with `networkit` and `numpy`.
    pub python: PathBuf,
    /// Scratch directory for the base graph, the batches and the results.
    pub dir: PathBuf,
    /// `networkit.setNumberOfThreads`.
    pub threads: usize,
    /// PageRank's L1 bound.
    pub bound: f64,
}

/// What NetworKit did on one batch size: per kernel, a [`Cell`] of its
/// timed calls and how far its final result is from dyngraph's static one.
#[derive(Clone, Debug, Default)]
pub struct NetworKitJob {
    /// `(kernel, cell)` for `pr`, `cc`, `bfs`, `sssp`.
    pub cells: Vec<(&'static str, Cell)>,
    /// `(kernel, vertices)`: where NetworKit's dynamic result differs from
    /// NetworKit's own static run on its final graph.
    pub self_check: Vec<(&'static str, u64)>,
}

/// dyngraph's static results after the same batches, to compare with.
#[derive(Clone, Debug, Default)]
pub struct StaticFinals {
    /// PageRank scores (any scale: both sides are scaled to sum 1).
    pub pagerank: Option<Vec<f64>>,
    /// Component labels.
    pub components: Option<Vec<VertexId>>,
    /// BFS depths (`u32::MAX` unreached).
    pub depths: Option<Vec<u32>>,
    /// SSSP distances (infinite unreached).
    pub distances: Option<Vec<f32>>,
}

const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/peers/networkit_batches.py");

/// The name of the job of `kind` batches of `size` edges: its files'
/// stem, and what [`NetworKit::compare`] takes.
pub fn job_name(kind: BatchKind, size: usize) -> String {
    format!("{}-{size}", kind.as_str())
}

impl NetworKit {
    /// Whether `python` can import NetworKit; the version if so.
    pub fn version(&self) -> Result<String, String> {
        let output = Command::new(&self.python)
            .args([
                "-c",
                "import networkit, numpy; print(networkit.__version__)",
            ])
            .output()
            .map_err(|e| format!("{}: {e}", self.python.display()))?;
        if !output.status.success() {
            return Err(format!(
                "{} cannot import networkit: {}",
                self.python.display(),
                String::from_utf8_lossy(&output.stderr).trim()
            ));
        }
        Ok(String::from_utf8_lossy(&output.stdout).trim().to_owned())
    }

    /// Writes `input`'s base graph for the jobs that follow.
    pub fn write_base(&self, input: &Input) -> std::io::Result<()> {
        std::fs::create_dir_all(&self.dir)?;
        let base = &input.edges[..input.base_len()];
        let vertices = input
            .edges
            .iter()
            .map(|e| u64::from(e.src.max(e.dst)) + 1)
            .max()
            .unwrap_or(1);
        let mut bytes = Vec::with_capacity(16 + base.len() * 12);
        bytes.extend_from_slice(&vertices.to_le_bytes());
        bytes.extend_from_slice(&(base.len() as u64).to_le_bytes());
        for e in base {
            bytes.extend_from_slice(&e.src.to_le_bytes());
            bytes.extend_from_slice(&e.dst.to_le_bytes());
            bytes.extend_from_slice(&e.weight.to_le_bytes());
        }
        write_file(&self.dir.join("base.bin"), &bytes)
    }

    /// Runs NetworKit on `input`'s batches of `kind`, one job per
    /// `(size, repeat)`: the batches [`Batches`] hands out with the seed
    /// the dyngraph rows used. `kernels` from `pr`, `cc`, `bfs`, `sssp`.
    pub fn run(
        &self,
        input: &Input,
        kind: BatchKind,
        sizes: &[(usize, usize)],
        source: VertexId,
        kernels: &[&str],
    ) -> Result<Vec<NetworKitJob>, String> {
        let names: Vec<String> = sizes
            .iter()
            .map(|&(size, _)| job_name(kind, size))
            .collect();
        for (name, &(size, repeat)) in names.iter().zip(sizes) {
            let mut batches = Batches::new(input, crate::incremental::batch_seed(size));
            let mut bytes = Vec::new();
            let mut count = 0u64;
            let mut body = Vec::new();
            for _ in 0..repeat {
                let (inserted, deleted) = batches.next_batch(kind, size);
                if inserted.is_empty() && deleted.is_empty() {
                    break;
                }
                count += 1;
                body.extend_from_slice(&(inserted.len() as u64).to_le_bytes());
                body.extend_from_slice(&(deleted.len() as u64).to_le_bytes());
                for e in &inserted {
                    body.extend_from_slice(&e.src.to_le_bytes());
                    body.extend_from_slice(&e.dst.to_le_bytes());
                    body.extend_from_slice(&e.weight.to_le_bytes());
                }
                for e in &deleted {
                    body.extend_from_slice(&e.src.to_le_bytes());
                    body.extend_from_slice(&e.dst.to_le_bytes());
                }
            }
            bytes.extend_from_slice(&count.to_le_bytes());
            bytes.extend_from_slice(&body);
            write_file(&self.dir.join(format!("{name}.bin")), &bytes)
                .map_err(|e| format!("{}: {e}", self.dir.display()))?;
        }
        let status = Command::new(&self.python)
            .arg(SCRIPT)
            .arg(&self.dir)
            .args(["--jobs", &names.join(",")])
            .args(["--threads", &self.threads.to_string()])
            .args(["--bound", &self.bound.to_string()])
            .args(["--source", &source.to_string()])
            .args(["--kernels", &kernels.join(",")])
            .status()
            .map_err(|e| format!("{}: {e}", self.python.display()))?;
        if !status.success() {
            return Err(format!("{SCRIPT} failed: {status}"));
        }
        names
            .iter()
            .map(|name| self.read_job(name, kernels))
            .collect()
    }

    fn read_job(&self, name: &str, kernels: &[&str]) -> Result<NetworKitJob, String> {
        let path = self.dir.join(format!("{name}.json"));
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let json: serde_json::Value =
            serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut job = NetworKitJob::default();
        for &kernel in ["pr", "cc", "bfs", "sssp"].iter() {
            if !kernels.contains(&kernel) {
                continue;
            }
            let seconds: Vec<f64> = json["seconds"][kernel]
                .as_array()
                .map(|a| a.iter().filter_map(|s| s.as_f64()).collect())
                .unwrap_or_default();
            job.cells.push((
                kernel,
                Cell {
                    seconds,
                    touched: f64::NAN,
                    ..Cell::default()
                },
            ));
            if let Some(differ) = json["self_check"][kernel].as_u64() {
                job.self_check.push((kernel, differ));
            }
        }
        Ok(job)
    }

    /// Fills each cell's error: PageRank's L1 and L∞ to dyngraph's static
    /// scores (both scaled to sum 1: NetworKit rescales its scores, the
    /// static kernel lets dangling vertices leak), and for CC, BFS and SSSP
    /// the vertices whose result differs (component membership, depth,
    /// distance within `1e-4` relative). NetworKit holds every vertex of
    /// the input from the start; those past dyngraph's vertex count have
    /// no edge yet, so they are left out.
    pub fn compare(&self, name: &str, job: &mut NetworKitJob, finals: &StaticFinals) {
        for (kernel, cell) in &mut job.cells {
            let path = |suffix: &str| self.dir.join(format!("{name}-{kernel}.{suffix}"));
            match *kernel {
                "pr" => {
                    if let (Some(ours), Some(mut theirs)) =
                        (&finals.pagerank, read_f64(&path("f64")))
                    {
                        theirs.truncate(ours.len());
                        let scale = |v: &[f64]| {
                            let sum: f64 = v.iter().sum();
                            v.iter().map(|x| x / sum).collect::<Vec<f64>>()
                        };
                        let (ours, theirs) = (scale(ours), scale(&theirs));
                        let error = dyngraph::incremental::pagerank_error(&theirs, &ours);
                        cell.l1 = error.l1;
                        cell.linf = error.linf;
                    } else {
                        cell.linf = f64::NAN;
                        cell.l1 = f64::NAN;
                    }
                }
                "cc" => {
                    cell.linf = match (&finals.components, read_u64(&path("u64"))) {
                        (Some(ours), Some(theirs)) => partition_differences(ours, &theirs),
                        _ => f64::NAN,
                    }
                }
                "bfs" => {
                    cell.linf = match (&finals.depths, read_f64(&path("f64"))) {
                        (Some(ours), Some(theirs)) => count_differing(
                            ours.iter()
                                .map(|&d| (d != u32::MAX).then_some(f64::from(d))),
                            &theirs,
                        ),
                        _ => f64::NAN,
                    }
                }
                "sssp" => {
                    cell.linf = match (&finals.distances, read_f64(&path("f64"))) {
                        (Some(ours), Some(theirs)) => count_differing(
                            ours.iter().map(|&d| d.is_finite().then_some(f64::from(d))),
                            &theirs,
                        ),
                        _ => f64::NAN,
                    }
                }
                _ => {}
            }
        }
    }

    /// Removes the scratch files.
    pub fn clean(&self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Vertices whose component, mapped through the first vertex seen with
/// each label, differs: 0 when the partitions are equal.
fn partition_differences(ours: &[VertexId], theirs: &[u64]) -> f64 {
    let mut map = std::collections::HashMap::new();
    let mut back = std::collections::HashMap::new();
    let differ = ours
        .iter()
        .zip(theirs)
        .filter(|&(&a, &b)| {
            let forward = *map.entry(a).or_insert(b);
            let backward = *back.entry(b).or_insert(a);
            forward != b || backward != a
        })
        .count();
    differ as f64
}

/// Vertices where a distance differs (`None`: unreached; NetworKit marks
/// unreached with the largest `f64`).
fn count_differing(ours: impl Iterator<Item = Option<f64>>, theirs: &[f64]) -> f64 {
    let mut differ = 0usize;
    for (a, &b) in ours.zip(theirs) {
        let b = (b < f64::MAX / 2.0).then_some(b);
        let same = match (a, b) {
            (None, None) => true,
            (Some(a), Some(b)) => (a - b).abs() <= 1e-4 * a.abs().max(1.0),
            _ => false,
        };
        differ += usize::from(!same);
    }
    differ as f64
}

fn read_f64(path: &Path) -> Option<Vec<f64>> {
    read_words(path, f64::from_le_bytes)
}

fn read_u64(path: &Path) -> Option<Vec<u64>> {
    read_words(path, u64::from_le_bytes)
}

/// The file's little-endian 8-byte words; `None` when it cannot be read.
fn read_words<T>(path: &Path, word: fn([u8; 8]) -> T) -> Option<Vec<T>> {
    let bytes = std::fs::read(path).ok()?;
    Some(
        bytes
            .chunks_exact(8)
            .map(|c| word(c.try_into().expect("8 bytes")))
            .collect(),
    )
}

fn write_file(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut file = AtomicFile::create(path).map_err(std::io::Error::other)?;
    file.write_all(bytes)?;
    file.commit().map_err(std::io::Error::other)
}
