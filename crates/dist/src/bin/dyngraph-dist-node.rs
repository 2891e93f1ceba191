//! One process of a distributed replay: the node the tests (and a user
//! without the CLI's flags yet) start once per host-file line.
//!
//! ```text
//! dyngraph-dist-node (--input FILE | --kronecker SCALE[:EDGE_FACTOR[:SEED]])
//!     [--hostfile FILE --process I] [--workers W]
//!     [--batch N] [--base-percent P] [--window 3600|5000edges] [--simple]
//!     [--in-edges] [--partitioner hash|modulo]
//!     [--kernels pr,bfs,cc,cc_sv,rw] [--every N] [--source V] [--verify]
//!     [--stall-timeout SECONDS] [--throttle-ms MS] [--output FILE]
//! ```
//!
//! The process hosting worker 0 writes the report (the single-machine
//! summary, per-worker counters, and the last checkpoint's kernel values)
//! as JSON to `--output` (or stdout: the library prints nothing there; a
//! process waiting for its peers says so on stderr); the others write
//! nothing. Exit code
//! 0 on success, 1 on any error (printed to stderr as `error: ...`),
//! 2 on bad arguments.

use dyngraph_core::CsrRebuild;
use dyngraph_core::{Error, Semantics, StoreOptions};
use dyngraph_dist::{Cluster, DistInput, DistOptions, Partitioner, replay};
use dyngraph_kernels::{KernelName, KernelOutput};
use dyngraph_loader::Generator;
use dyngraph_replay::{ReplayOptions, Window};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

struct Arguments {
    input: Option<DistInput>,
    hostfile: Option<PathBuf>,
    process: usize,
    workers: usize,
    options: DistOptions,
    output: Option<PathBuf>,
}

fn usage(message: &str) -> ! {
    eprintln!("error: {message}");
    eprintln!(
        "usage: dyngraph-dist-node (--input FILE | --kronecker SCALE[:EDGE_FACTOR[:SEED]]) \
         [--hostfile FILE --process I] [--workers W] [--batch N] [--base-percent P] \
         [--window SPEC] [--simple] [--in-edges] [--partitioner hash|modulo] \
         [--kernels LIST] [--every N] [--source V] [--verify] [--stall-timeout S] \
         [--throttle-ms MS] [--output FILE]"
    );
    std::process::exit(2)
}

fn parse<T: std::str::FromStr>(flag: &str, value: Option<String>) -> T {
    let value = value.unwrap_or_else(|| usage(&format!("{flag} needs a value")));
    value
        .parse()
        .unwrap_or_else(|_| usage(&format!("{flag}: cannot read {value:?}")))
}

fn arguments() -> Arguments {
    let mut args = std::env::args().skip(1);
    let mut parsed = Arguments {
        input: None,
        hostfile: None,
        process: 0,
        workers: 1,
        options: DistOptions {
            replay: ReplayOptions {
                batch: 1024,
                ..ReplayOptions::default()
            },
            ..DistOptions::default()
        },
        output: None,
    };
    let mut semantics = Semantics::Multigraph;
    let mut in_edges = false;
    while let Some(flag) = args.next() {
        let options = &mut parsed.options;
        match flag.as_str() {
            "--input" => parsed.input = Some(DistInput::File(parse("--input", args.next()))),
            "--kronecker" => {
                let spec: String = parse("--kronecker", args.next());
                let parts: Vec<u64> = spec
                    .split(':')
                    .map(|p| {
                        p.parse()
                            .unwrap_or_else(|_| usage("--kronecker SCALE[:EF[:SEED]]"))
                    })
                    .collect();
                let mut generator = Generator::kronecker(
                    parts[0] as u32,
                    parts.get(1).copied().unwrap_or(16) as u32,
                );
                if let Some(&seed) = parts.get(2) {
                    generator = generator.seed(seed);
                }
                parsed.input = Some(DistInput::Generated(generator));
            }
            "--hostfile" => parsed.hostfile = Some(parse("--hostfile", args.next())),
            "--process" => parsed.process = parse("--process", args.next()),
            "--workers" => parsed.workers = parse("--workers", args.next()),
            "--batch" => options.replay.batch = parse("--batch", args.next()),
            "--base-percent" => options.replay.base_percent = parse("--base-percent", args.next()),
            "--window" => {
                let spec: String = parse("--window", args.next());
                options.replay.window = Some(spec.parse::<Window>().unwrap_or_else(|e| usage(&e)));
            }
            "--simple" => semantics = Semantics::Simple,
            "--in-edges" => in_edges = true,
            "--partitioner" => {
                let name: String = parse("--partitioner", args.next());
                options.partitioner = name
                    .parse::<Partitioner>()
                    .unwrap_or_else(|e| usage(&e.to_string()));
            }
            "--kernels" => {
                let list: String = parse("--kernels", args.next());
                options.kernels = list
                    .split(',')
                    .filter(|k| !k.is_empty())
                    .map(|k| {
                        k.parse::<KernelName>()
                            .unwrap_or_else(|e| usage(&e.to_string()))
                    })
                    .collect();
            }
            "--every" => options.every = Some(parse("--every", args.next())),
            "--source" => options.source = Some(parse("--source", args.next())),
            "--verify" => options.verify = true,
            "--stall-timeout" => {
                let seconds: f64 = parse("--stall-timeout", args.next());
                options.stall_timeout = Duration::from_secs_f64(seconds.max(0.1));
            }
            "--throttle-ms" => {
                let millis: u64 = parse("--throttle-ms", args.next());
                options.throttle = Some(Duration::from_millis(millis));
            }
            "--output" => parsed.output = Some(parse("--output", args.next())),
            other => usage(&format!("unknown argument {other:?}")),
        }
    }
    parsed.options.replay.semantics = semantics;
    parsed.options.store = StoreOptions::new(semantics)
        .in_edges(in_edges)
        .weighted(true);
    parsed.options.gather = true;
    parsed
}

/// The kernel values of the report, by kernel: what the tests compare.
fn values(outputs: &BTreeMap<String, KernelOutput>) -> serde_json::Value {
    let mut map = serde_json::Map::new();
    for (name, output) in outputs {
        let value = match output {
            KernelOutput::Bfs(r) => serde_json::json!({ "depths": r.depths }),
            KernelOutput::PageRank(r) => {
                serde_json::json!({
                    "scores": r.scores,
                    "scores_bits": r.scores.iter().map(|v| v.to_bits()).collect::<Vec<u32>>(),
                    "iterations": r.iterations,
                })
            }
            KernelOutput::Components(r) => serde_json::json!({ "labels": r.labels }),
            // JSON readers may round the last bit of an f64: the bits too.
            KernelOutput::ReverseWalks(r) => serde_json::json!({
                "visits": r.visits,
                "visits_bits": r.visits.iter().map(|v| v.to_bits()).collect::<Vec<u64>>(),
            }),
            _ => serde_json::Value::Null,
        };
        map.insert(name.clone(), value);
    }
    serde_json::Value::Object(map)
}

fn run(arguments: Arguments) -> Result<(), Error> {
    let input = arguments
        .input
        .ok_or_else(|| Error::InvalidArgument("give --input FILE or --kronecker SCALE".into()))?;
    let cluster = match &arguments.hostfile {
        Some(path) => Cluster::from_hostfile(path, arguments.process, arguments.workers)?,
        None => Cluster::threads(arguments.workers),
    };
    let Some(report) = replay::<CsrRebuild>(&cluster, input, arguments.options)? else {
        return Ok(());
    };
    let document = serde_json::json!({
        "report": &report,
        "values": values(&report.outputs),
    });
    let text = serde_json::to_string(&document)
        .map_err(|e| Error::InvalidArgument(format!("report: {e}")))?;
    match &arguments.output {
        Some(path) => std::fs::write(path, text).map_err(|source| Error::Io {
            path: path.clone(),
            source,
        }),
        None => {
            println!("{text}");
            Ok(())
        }
    }
}

fn main() {
    let arguments = arguments();
    if let Err(error) = run(arguments) {
        eprintln!("error: {error}");
        // Timely's threads may be blocked on a dead peer: leave without them.
        std::process::exit(1);
    }
    std::process::exit(0);
}
