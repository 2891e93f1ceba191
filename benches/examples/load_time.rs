//! Times loads of a file: `cargo run --profile perf -p dyngraph-benches
//! --example load_time -- PATH [THREADS] [stream|csr|csr-transpose]
//! [REPEATS]` (three loads by default, each timed).

use dyngraph::loader::{LoadOptions, load_csr, load_edge_stream};
use std::time::Instant;

fn main() -> Result<(), dyngraph::core::Error> {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .expect("usage: load_time PATH [THREADS] [stream|csr|csr-transpose] [REPEATS]");
    let threads: usize = args.next().map_or(1, |t| t.parse().expect("threads"));
    let what = args.next().unwrap_or_else(|| "stream".into());
    let repeats: usize = args.next().map_or(3, |r| r.parse().expect("repeats"));
    let options = LoadOptions::default()
        .threads(threads)
        .in_edges(what == "csr-transpose");
    for _ in 0..repeats {
        let start = Instant::now();
        let edges = if what.starts_with("csr") {
            load_csr(&path, &options)?.targets().len()
        } else {
            load_edge_stream(&path, &options)?.len()
        };
        let seconds = start.elapsed().as_secs_f64();
        println!(
            "{what} {threads}t: {edges} edges in {seconds:.3} s = {:.1} M edges/s",
            edges as f64 / seconds / 1e6
        );
    }
    Ok(())
}
