//! Builds a `Csr` from a SNAP-style edge list (`src dst [third]` per line,
//! `#` comments) and prints its statistics. Defaults to the bundled sample.
//!
//! `cargo run --release -p dyngraph-core --example csr_stats [FILE]`
//!
//! The parser here is deliberately plain (std only); the parallel loader in
//! `crates/loader` is the real reader.

use dyngraph_core::StoreConfig;
use dyngraph_core::{Csr, CsrOptions, Edge, Graph, OutNeighbors, Semantics};
use std::process::ExitCode;
use std::time::Instant;

fn parse(path: &str, text: &str) -> Result<Vec<Edge>, String> {
    let mut edges = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut fields = line.split_whitespace();
        let mut id = |name: &str| -> Result<u32, String> {
            let token = fields
                .next()
                .ok_or_else(|| format!("{path}:{}: missing {name}", index + 1))?;
            token
                .parse()
                .map_err(|_| format!("{path}:{}: {name} {token:?} is not a vertex id", index + 1))
        };
        let src = id("source")?;
        let dst = id("destination")?;
        edges.push(Edge::new(src, dst));
    }
    Ok(edges)
}

fn main() -> ExitCode {
    let default = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/CollegeMsg.txt");
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| default.to_string());
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(error) => {
            eprintln!("error: {path}: {error}");
            return ExitCode::from(2);
        }
    };
    let edges = match parse(&path, &text) {
        Ok(edges) => edges,
        Err(message) => {
            eprintln!("error: {message}");
            return ExitCode::from(2);
        }
    };
    let start = Instant::now();
    let csr = match Csr::from_edges(&edges, CsrOptions::default().in_edges(true)) {
        Ok(csr) => csr,
        Err(error) => {
            eprintln!("error: {path}: {error}");
            return ExitCode::from(2);
        }
    };
    let build = start.elapsed();
    let distinct = Csr::from_edges(&edges, CsrOptions::default().semantics(Semantics::Simple))
        .map_or(0, |d| d.edge_count());
    let max_degree = (0..csr.vertex_count() as u32)
        .map(|v| csr.out_degree(v))
        .max()
        .unwrap_or(0);
    println!("file            {path}");
    println!("vertices        {}", csr.vertex_count());
    println!("edges           {}", csr.edge_count());
    println!("distinct edges  {distinct}");
    println!("max out-degree  {max_degree}");
    println!("build (ms)      {:.3}", build.as_secs_f64() * 1e3);
    println!("bytes           {} (with in-edges)", csr.memory_bytes());
    println!(
        "bytes per edge  {:.2}",
        csr.memory_bytes() as f64 / csr.edge_count().max(1) as f64
    );
    ExitCode::SUCCESS
}
