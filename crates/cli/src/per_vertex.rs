//! `run KERNEL FILE --output OUT.csv|OUT.jsonl`: one row per vertex, named
//! by its original id or key when the input was relabelled, with the
//! kernel's value, for a user's pandas or spreadsheet.
//!
//! The columns are `vertex` and the kernel's values:
//! - `bfs`: `depth` (hops from the source) and `parent` (the vertex it was
//!   reached from, named like `vertex`), empty when unreached;
//! - `pr`: `score`; `bc`: `score`; `rw`: `visits`;
//! - `sssp`: `distance`, empty when unreachable;
//! - `cc`: `component`, the name of the component's representative vertex.
//!
//! `tc` counts the whole graph's triangles and has no per-vertex value:
//! `--output` is refused for it before any work.

use crate::names::Names;
use anyhow::{Result, bail};
use dyngraph::core::VertexId;
use dyngraph::kernels::{KernelName, KernelOutput, NO_PARENT, UNREACHED};
use serde_json::{Map, Value};
use std::io::Write;
use std::path::Path;

/// The file format: from the output's extension (`run --output`), or
/// `replay --output-format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Format {
    /// A header, then one row per vertex.
    Csv,
    /// One JSON object per vertex and line.
    #[value(name = "jsonl")]
    JsonLines,
}

/// Checks `--output` before any work: a format from its extension, and a
/// kernel with per-vertex values.
pub(crate) fn format(path: &Path, kernel: KernelName) -> Result<Format> {
    if kernel == KernelName::Triangles {
        bail!(
            "--output {}: tc counts the whole graph's triangles and has no per-vertex value; \
             its count is printed with each trial",
            path.display()
        );
    }
    match path.extension().and_then(|e| e.to_str()) {
        Some("csv") => Ok(Format::Csv),
        Some("jsonl" | "ndjson") => Ok(Format::JsonLines),
        _ => bail!(
            "--output {}: the format comes from the file's extension: .csv (one row per \
             vertex) or .jsonl (one JSON object per line)",
            path.display()
        ),
    }
}

/// One cell of a row.
#[derive(Clone, Debug, PartialEq)]
enum Cell {
    Number(f64),
    Count(u64),
    /// A vertex, written by its name.
    Vertex(VertexId),
    /// Unreached, unreachable: an empty CSV cell, JSON `null`.
    Missing,
}

/// A vertex's cells, by vertex index.
type Cells<'a> = Box<dyn Fn(usize) -> Vec<Cell> + 'a>;

/// The value columns' names and each vertex's cells, for `output`.
fn columns(output: &KernelOutput) -> (Vec<&'static str>, Cells<'_>) {
    match output {
        KernelOutput::Bfs(bfs) => (
            vec!["depth", "parent"],
            Box::new(move |v| {
                let parent = bfs.parents[v];
                if parent == NO_PARENT {
                    return vec![Cell::Missing, Cell::Missing];
                }
                let depth = match &bfs.depths {
                    Some(depths) if depths[v] != UNREACHED => Cell::Count(u64::from(depths[v])),
                    Some(_) => Cell::Missing,
                    None => Cell::Count(depth_by_parents(&bfs.parents, v)),
                };
                vec![depth, Cell::Vertex(parent)]
            }),
        ),
        KernelOutput::PageRank(ranks) => (
            vec!["score"],
            Box::new(move |v| vec![Cell::Number(f64::from(ranks.scores[v]))]),
        ),
        KernelOutput::Sssp(paths) => (
            vec!["distance"],
            Box::new(move |v| {
                let d = paths.distances[v];
                vec![if d.is_finite() {
                    Cell::Number(f64::from(d))
                } else {
                    Cell::Missing
                }]
            }),
        ),
        KernelOutput::Components(components) => (
            vec!["component"],
            Box::new(move |v| vec![Cell::Vertex(components.labels[v])]),
        ),
        KernelOutput::Bc(bc) => (
            vec!["score"],
            Box::new(move |v| vec![Cell::Number(bc.scores[v])]),
        ),
        KernelOutput::ReverseWalks(walks) => (
            vec!["visits"],
            Box::new(move |v| vec![Cell::Number(walks.visits[v])]),
        ),
        KernelOutput::Triangles(_) => (Vec::new(), Box::new(|_| Vec::new())),
    }
}

/// The vertices `output` has a value for (0 for a triangle count).
pub(crate) fn vertex_count(output: &KernelOutput) -> usize {
    match output {
        KernelOutput::Bfs(bfs) => bfs.parents.len(),
        KernelOutput::PageRank(ranks) => ranks.scores.len(),
        KernelOutput::Sssp(paths) => paths.distances.len(),
        KernelOutput::Components(components) => components.labels.len(),
        KernelOutput::Bc(bc) => bc.scores.len(),
        KernelOutput::ReverseWalks(walks) => walks.visits.len(),
        KernelOutput::Triangles(_) => 0,
    }
}

/// Hops from the source along the BFS tree (when the kernel kept no
/// depths): the tree's parents lead back to the source, which is its own.
fn depth_by_parents(parents: &[VertexId], mut v: usize) -> u64 {
    let mut hops = 0;
    while parents[v] as usize != v && hops <= parents.len() as u64 {
        v = parents[v] as usize;
        hops += 1;
    }
    hops
}

/// Writes every vertex's row of `output` to `path`, whole or not at all.
pub(crate) fn write(
    path: &Path,
    format: Format,
    output: &KernelOutput,
    names: &Names<'_>,
    vertices: usize,
) -> Result<()> {
    let (headers, cells) = columns(output);
    crate::output::write(path, |out| match format {
        Format::Csv => write_csv(out, &headers, &cells, names, vertices),
        Format::JsonLines => write_json_lines(out, &headers, &cells, names, vertices),
    })
}

fn write_csv(
    out: &mut dyn Write,
    headers: &[&str],
    cells: &dyn Fn(usize) -> Vec<Cell>,
    names: &Names<'_>,
    vertices: usize,
) -> std::io::Result<()> {
    let mut csv = csv::Writer::from_writer(out);
    let mut record = vec!["vertex".to_string()];
    record.extend(headers.iter().map(|h| h.to_string()));
    csv.write_record(&record)?;
    for v in 0..vertices {
        record.clear();
        record.push(names.name(v as VertexId));
        record.extend(cells(v).into_iter().map(|cell| match cell {
            Cell::Number(x) => x.to_string(),
            Cell::Count(n) => n.to_string(),
            Cell::Vertex(u) => names.name(u),
            Cell::Missing => String::new(),
        }));
        csv.write_record(&record)?;
    }
    csv.flush()
}

fn write_json_lines(
    out: &mut dyn Write,
    headers: &[&str],
    cells: &dyn Fn(usize) -> Vec<Cell>,
    names: &Names<'_>,
    vertices: usize,
) -> std::io::Result<()> {
    let mut out = std::io::BufWriter::new(out);
    for v in 0..vertices {
        let mut row = Map::new();
        row.insert("vertex".into(), names.json(v as VertexId));
        for (header, cell) in headers.iter().zip(cells(v)) {
            let value = match cell {
                Cell::Number(x) => {
                    serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number)
                }
                Cell::Count(n) => Value::from(n),
                Cell::Vertex(u) => names.json(u),
                Cell::Missing => Value::Null,
            };
            row.insert((*header).into(), value);
        }
        serde_json::to_writer(&mut out, &Value::Object(row))?;
        out.write_all(b"\n")?;
    }
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depths_follow_the_tree_back_to_the_source() {
        // 0 is the source; 0 -> 1 -> 2, 0 -> 3.
        let parents = [0, 0, 1, 0];
        let depths: Vec<u64> = (0..4).map(|v| depth_by_parents(&parents, v)).collect();
        assert_eq!(depths, [0, 1, 2, 1]);
    }

    #[test]
    fn the_format_comes_from_the_extension_and_tc_is_refused() {
        let pr = KernelName::PageRank;
        assert_eq!(format(Path::new("r.csv"), pr).unwrap(), Format::Csv);
        assert_eq!(format(Path::new("r.jsonl"), pr).unwrap(), Format::JsonLines);
        let error = format(Path::new("r.txt"), pr).unwrap_err().to_string();
        assert!(
            error.contains(".csv") && error.contains(".jsonl"),
            "{error}"
        );
        let error = format(Path::new("r.csv"), KernelName::Triangles)
            .unwrap_err()
            .to_string();
        assert!(error.contains("no per-vertex value"), "{error}");
    }
}
