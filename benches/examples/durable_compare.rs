//! Insert throughput at every sync point, PageRank on a kept store, write
//! amplification, reopen and recovery of the durable store, against the
//! in-memory `Vcsr` and SQLite (bundled, WAL, an indexed `(src, dst)` table,
//! one transaction per sync point) on the same stream, printed as Markdown
//! tables.
//!
//! ```text
//! cargo run --profile perf -p dyngraph-benches --example durable_compare -- [--kron-scale 20]
//!     [--datasets college,mathoverflow,kron] [--syncs edge,1k,batch,group,none]
//!     [--edge-cap 2000] [--k1-cap 200000] [--sqlite-cap 4000000]
//!     [--sqlite true] [--ablation true] [--whole true] [--repeat 1]
//!     [--checkpoint-mib 64] [--vcsr true] [--dir /tmp]
//! ```
//!
//! `--repeat N` runs each cell's durable and `Vcsr` replays N times in
//! turn (durable, Vcsr, durable, ...) and prints their medians and the
//! median of the pairwise shares: pairing keeps the share meaningful on a
//! machine whose speed drifts.
//!
//! Sync points (`--syncs`):
//! - `edge`: one edge per call, a commit per edge (`SyncPolicy::EveryEdge`);
//!   SQLite: a transaction per edge. Replays the first `--edge-cap` edges.
//! - `1k`: batches of 1,000, a commit per batch; the first `--k1-cap`.
//! - `batch`: batches of 65,536, a commit per batch (`SyncPolicy::EveryBatch`).
//! - `group`: one edge per call under the default group commit
//!   (`SyncPolicy::Group`: 4,096 updates or 1 ms); SQLite: a transaction
//!   per 4,096 edges (its sync points can be no later).
//! - `none`: batches of 65,536, no commit until the end
//!   (`SyncPolicy::Explicit`); SQLite `synchronous=OFF`.
//!
//! Every durable cell times the calls and the final commit (the
//! checkpoints the log's size triggers on the way included), not the
//! closing checkpoint. The `Vcsr` column replays the same edges into the
//! in-memory `dyngraph-vcsr` `Vcsr` in the same batches; "share" is the
//! durable rate over it. `batch`, `group` and `none` cells replay up to
//! `--sqlite-cap` edges.
//!
//! The whole-stream rows replay everything with no commit, then run
//! PageRank on the store, close it, reopen it clean and after a simulated
//! crash, and build a second store with in-edges (`from_edges`) to time
//! pull PageRank on it after a read-only open (the `dyngraph run pr D`
//! case) against `Vcsr` with in-edges.

use dyngraph::core::StoreConfig;
use dyngraph::core::{
    Csr, CsrOptions, Edge, FromEdges, Graph, GraphStore, GraphUpdate, InEdges, OutNeighbors,
    StoreOptions,
};
use dyngraph::durable::{DurableOptions, DurableVcsr, GroupCommit, SyncPolicy};
use dyngraph::kernels::{PageRankOptions, pagerank};
use dyngraph::loader::{EdgeStream, Generator, LoadOptions, Order, load_edge_stream};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The sync points of the table.
#[derive(Clone, Copy, PartialEq)]
enum Sync {
    Edge,
    K1,
    Batch,
    Group,
    None,
}

impl Sync {
    fn parse(s: &str) -> Self {
        match s {
            "edge" => Sync::Edge,
            "1k" => Sync::K1,
            "batch" | "64k" => Sync::Batch,
            "group" => Sync::Group,
            "none" => Sync::None,
            other => panic!("unknown sync point {other}: edge, 1k, batch, group or none"),
        }
    }
    fn name(self) -> &'static str {
        match self {
            Sync::Edge => "per edge (batch 1)",
            Sync::K1 => "per batch of 1K",
            Sync::Batch => "per batch of 64K",
            Sync::Group => "group commit (batch 1)",
            Sync::None => "none (batches of 64K)",
        }
    }
    fn policy(self) -> SyncPolicy {
        match self {
            Sync::Edge => SyncPolicy::EveryEdge,
            Sync::K1 | Sync::Batch => SyncPolicy::EveryBatch,
            Sync::Group => SyncPolicy::Group(GroupCommit::default()),
            Sync::None => SyncPolicy::Explicit,
        }
    }
    /// Edges per update call.
    fn batch(self) -> usize {
        match self {
            Sync::Edge | Sync::Group => 1,
            Sync::K1 => 1000,
            Sync::Batch | Sync::None => 65_536,
        }
    }
    /// Edges per SQLite transaction.
    fn sqlite_batch(self) -> usize {
        match self {
            Sync::Group => 4096,
            other => other.batch(),
        }
    }
}

struct Args {
    kron_scale: u32,
    datasets: Vec<String>,
    syncs: Vec<Sync>,
    edge_cap: usize,
    k1_cap: usize,
    sqlite_cap: usize,
    sqlite: bool,
    ablation: bool,
    whole: bool,
    repeat: usize,
    checkpoint_mib: u64,
    vcsr: bool,
    dir: PathBuf,
}

fn args() -> Args {
    let mut args = Args {
        kron_scale: 20,
        datasets: vec!["college".into(), "mathoverflow".into(), "kron".into()],
        syncs: vec![Sync::Edge, Sync::K1, Sync::Batch, Sync::Group, Sync::None],
        edge_cap: 2000,
        k1_cap: 200_000,
        sqlite_cap: 4_000_000,
        sqlite: true,
        ablation: true,
        whole: true,
        repeat: 1,
        checkpoint_mib: 64,
        vcsr: true,
        dir: std::env::temp_dir(),
    };
    let raw: Vec<String> = std::env::args().skip(1).collect();
    for pair in raw.chunks(2) {
        let value = pair.get(1).cloned().unwrap_or_default();
        match pair[0].as_str() {
            "--kron-scale" => args.kron_scale = value.parse().unwrap(),
            "--datasets" => args.datasets = value.split(',').map(String::from).collect(),
            "--syncs" => args.syncs = value.split(',').map(Sync::parse).collect(),
            "--edge-cap" => args.edge_cap = value.parse().unwrap(),
            "--k1-cap" => args.k1_cap = value.parse().unwrap(),
            "--sqlite-cap" => args.sqlite_cap = value.parse().unwrap(),
            "--sqlite" => args.sqlite = value.parse().unwrap(),
            "--ablation" => args.ablation = value.parse().unwrap(),
            "--whole" => args.whole = value.parse().unwrap(),
            "--repeat" => args.repeat = value.parse().unwrap(),
            "--checkpoint-mib" => args.checkpoint_mib = value.parse().unwrap(),
            "--vcsr" => args.vcsr = value.parse().unwrap(),
            "--dir" => args.dir = value.into(),
            other => panic!("unknown argument {other}"),
        }
    }
    args
}

fn edges_of(stream: &EdgeStream) -> Vec<Edge> {
    stream.edges().collect()
}

fn load(name: &str, scale: u32) -> Option<(String, Vec<Edge>)> {
    // The shared data set sits beside the repository (`../shared/data`).
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data");
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data");
    match name {
        "college" => {
            let path = [data.join("CollegeMsg.txt"), repo.join("CollegeMsg.txt")]
                .into_iter()
                .find(|p| p.exists())?;
            let s = load_edge_stream(&path, &LoadOptions::default()).ok()?;
            Some(("CollegeMsg".into(), edges_of(&s)))
        }
        "mathoverflow" => {
            let base = data.join("sx-mathoverflow/b30/base.wel");
            let dynamic = data.join("sx-mathoverflow/b30/dynamic.wel");
            if !base.exists() {
                eprintln!(
                    "note: {} is absent; skipping sx-mathoverflow",
                    base.display()
                );
                return None;
            }
            let mut edges = edges_of(&load_edge_stream(&base, &LoadOptions::default()).ok()?);
            edges.extend(edges_of(
                &load_edge_stream(&dynamic, &LoadOptions::default()).ok()?,
            ));
            Some(("sx-mathoverflow (b30 base+dynamic)".into(), edges))
        }
        "kron" => {
            let s = Generator::kronecker(scale, 16)
                .order(Order::Shuffle)
                .generate()
                .ok()?;
            Some((
                format!("Kronecker scale {scale}, edge factor 16, shuffled"),
                edges_of(&s),
            ))
        }
        _ => None,
    }
}

fn fresh(dir: &Path, name: &str) -> PathBuf {
    let path = dir.join(format!("dyngraph-compare-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&path);
    let _ = std::fs::remove_file(&path);
    path
}

/// Replays `edges` into a new durable store; returns it with the seconds
/// the calls and the final commit took.
fn durable_replay(
    edges: &[Edge],
    sync: Sync,
    edge_log: bool,
    in_edges: bool,
    dir: &Path,
) -> (DurableVcsr, f64) {
    let options = DurableOptions::in_dir(dir)
        .store(StoreOptions::default().in_edges(in_edges))
        .sync(sync.policy())
        .edge_log(edge_log)
        .checkpoint_bytes(CHECKPOINT_MIB.load(std::sync::atomic::Ordering::Relaxed) << 20);
    let mut store = DurableVcsr::create(dir, options).unwrap();
    let started = Instant::now();
    for batch in edges.chunks(sync.batch()) {
        if batch.len() == 1 {
            store.insert_edge(batch[0].src, batch[0].dst).unwrap();
        } else {
            store.insert_edges(batch).unwrap();
        }
    }
    store.commit().unwrap();
    let seconds = started.elapsed().as_secs_f64();
    assert_eq!(store.acknowledged().edges, edges.len() as u64);
    (store, seconds)
}

fn sqlite_replay(edges: &[Edge], sync: Sync, path: &Path) -> (rusqlite::Connection, f64) {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.pragma_update(None, "journal_mode", "WAL").unwrap();
    let synchronous = if matches!(sync, Sync::None) {
        "OFF"
    } else {
        "FULL"
    };
    conn.pragma_update(None, "synchronous", synchronous)
        .unwrap();
    conn.execute_batch(
        "CREATE TABLE edges(src INTEGER NOT NULL, dst INTEGER NOT NULL);
         CREATE INDEX edges_src_dst ON edges(src, dst);",
    )
    .unwrap();
    let started = Instant::now();
    for batch in edges.chunks(sync.sqlite_batch()) {
        conn.execute_batch("BEGIN").unwrap();
        {
            let mut insert = conn
                .prepare_cached("INSERT INTO edges(src, dst) VALUES (?1, ?2)")
                .unwrap();
            for e in batch {
                insert.execute((e.src, e.dst)).unwrap();
            }
        }
        conn.execute_batch("COMMIT").unwrap();
    }
    (conn, started.elapsed().as_secs_f64())
}

fn remove_sqlite(db: &Path) {
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", db.display()));
    }
}

fn sqlite_pagerank(conn: &rusqlite::Connection) -> f64 {
    let started = Instant::now();
    let mut select = conn.prepare("SELECT src, dst FROM edges").unwrap();
    let edges: Vec<Edge> = select
        .query_map([], |row| Ok(Edge::new(row.get(0)?, row.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let csr = Csr::from_edges(&edges[..], CsrOptions::default()).unwrap();
    let ranks = pagerank(&csr, &PageRankOptions::default()).unwrap();
    assert!(!ranks.scores.is_empty());
    started.elapsed().as_secs_f64()
}

/// `edges` into a new in-memory `Vcsr` in batches of `batch`, and the
/// seconds it took.
fn vcsr_replay(edges: &[Edge], batch: usize, in_edges: bool) -> (dyngraph::vcsr::Vcsr, f64) {
    let mut vcsr =
        dyngraph::vcsr::Vcsr::new(dyngraph::vcsr::VcsrOptions::default().in_edges(in_edges))
            .expect("default options");
    let start = Instant::now();
    for chunk in edges.chunks(batch) {
        if chunk.len() == 1 {
            vcsr.insert_edge(chunk[0].src, chunk[0].dst)
                .expect("ids fit");
        } else {
            vcsr.insert_edges(chunk).expect("ids fit");
        }
    }
    (vcsr, start.elapsed().as_secs_f64())
}

/// PageRank seconds, best of three (the machine is shared); and whether it
/// pulled.
fn time_pagerank<G: OutNeighbors + InEdges + std::marker::Sync>(graph: &G) -> (f64, bool) {
    let best = (0..3)
        .map(|_| {
            let started = Instant::now();
            let ranks = pagerank(graph, &PageRankOptions::default()).unwrap();
            assert_eq!(ranks.scores.len(), graph.vertex_count());
            started.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min);
    (best, graph.has_in_edges())
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn rate(edges: usize, seconds: f64) -> String {
    let r = edges as f64 / seconds;
    if r >= 1e6 {
        format!("{:.2} M/s", r / 1e6)
    } else {
        format!("{:.1} K/s", r / 1e3)
    }
}

fn uptime() -> String {
    String::from_utf8_lossy(
        &std::process::Command::new("uptime")
            .output()
            .map(|o| o.stdout)
            .unwrap_or_default(),
    )
    .trim()
    .to_string()
}

fn sync_table(args: &Args, edges: &[Edge]) {
    println!(
        "| sync | edges replayed | durable | share of Vcsr | Vcsr (in memory) | durable, no edge log | SQLite (WAL, txn per sync point) | durable / SQLite | commits | checkpoints | bytes written per edge (log / no log) | bytes flushed per edge |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    for &sync in &args.syncs {
        let cap = match sync {
            Sync::Edge => args.edge_cap,
            Sync::K1 => args.k1_cap,
            Sync::Batch | Sync::Group | Sync::None => args.sqlite_cap,
        };
        let part = &edges[..edges.len().min(cap)];
        let dir = fresh(&args.dir, "durable");
        let mut runs = Vec::new();
        let mut with_log = Default::default();
        for _ in 0..args.repeat.max(1) {
            let (store, seconds) = durable_replay(part, sync, true, false, &dir);
            with_log = store.stats();
            drop(store);
            let _ = std::fs::remove_dir_all(&dir);
            let vcsr_seconds = if args.vcsr {
                vcsr_replay(part, sync.batch(), false).1
            } else {
                f64::NAN
            };
            runs.push((seconds, vcsr_seconds));
        }
        let seconds = median(runs.iter().map(|r| r.0).collect());
        let vcsr_seconds = median(runs.iter().map(|r| r.1).collect());
        let share = median(runs.iter().map(|r| r.1 / r.0).collect());
        let (no_log_cell, no_log_bytes) = if args.ablation {
            let (store, seconds_no_log) = durable_replay(part, sync, false, false, &dir);
            let no_log = store.stats();
            drop(store);
            let _ = std::fs::remove_dir_all(&dir);
            (
                rate(part.len(), seconds_no_log),
                format!("{:.1}", no_log.bytes_written() as f64 / part.len() as f64),
            )
        } else {
            ("—".into(), "—".into())
        };
        let (sqlite_cell, ratio) = if args.sqlite {
            let db = fresh(&args.dir, "sqlite.db");
            let (conn, sqlite_seconds) = sqlite_replay(part, sync, &db);
            drop(conn);
            remove_sqlite(&db);
            (
                rate(part.len(), sqlite_seconds),
                format!("{:.1}x", sqlite_seconds / seconds),
            )
        } else {
            ("—".into(), "—".into())
        };
        println!(
            "| {} | {} | {} | {:.0}% | {} | {} | {} | {} | {} | {} | {:.1} / {} | {:.1} |",
            sync.name(),
            part.len(),
            rate(part.len(), seconds),
            100.0 * share,
            rate(part.len(), vcsr_seconds),
            no_log_cell,
            sqlite_cell,
            ratio,
            with_log.commits,
            with_log.checkpoints,
            with_log.bytes_written() as f64 / part.len() as f64,
            no_log_bytes,
            with_log.bytes_flushed as f64 / part.len() as f64,
        );
    }
}

fn whole_stream(args: &Args, edges: &[Edge]) {
    let m = edges.len() as f64 / 1e6;
    let dir = fresh(&args.dir, "durable-full");
    let (store, seconds) = durable_replay(edges, Sync::None, true, false, &dir);
    let stats = store.stats();
    let (durable_pr, _) = time_pagerank(&store);
    let csr = Csr::from_edges(edges, CsrOptions::default()).unwrap();
    let (csr_pr, _) = time_pagerank(&csr);
    let file_bytes = store.file_bytes();
    let memory = store.memory_bytes();
    let started = Instant::now();
    store.close().unwrap();
    let close = started.elapsed().as_secs_f64();
    let started = Instant::now();
    let reopened = DurableVcsr::open(&dir).unwrap();
    let reopen = started.elapsed().as_secs_f64();
    assert!(reopened.recovery_report().clean);
    reopened.drop_without_close();
    let started = Instant::now();
    let recovered = DurableVcsr::open(&dir).unwrap();
    let recovery = started.elapsed().as_secs_f64();
    assert!(!recovered.recovery_report().clean);
    assert_eq!(recovered.edge_count() as usize, edges.len());
    drop(recovered);
    let _ = std::fs::remove_dir_all(&dir);

    // A crash after a stream's tail: everything since the last checkpoint
    // comes back from the write-ahead log. The tail is the last quarter
    // (at most 4M edges), after a checkpoint.
    let tail = (edges.len() / 4).min(4 << 20);
    let (mut store, _) =
        durable_replay(&edges[..edges.len() - tail], Sync::Batch, true, false, &dir);
    store.sync().unwrap();
    for batch in edges[edges.len() - tail..].chunks(Sync::Batch.batch()) {
        store.insert_edges(batch).unwrap();
    }
    store.drop_without_close();
    let started = Instant::now();
    let recovered = DurableVcsr::open(&dir).unwrap();
    let log_recovery = started.elapsed().as_secs_f64();
    let replayed = recovered.recovery_report().wal_updates_replayed;
    assert_eq!(recovered.edge_count() as usize, edges.len());
    drop(recovered);
    let _ = std::fs::remove_dir_all(&dir);

    // A kept store with in-edges, opened read-only: `dyngraph run pr D`.
    let dir = fresh(&args.dir, "durable-in");
    let options = DurableOptions::in_dir(&dir).store(StoreOptions::default().in_edges(true));
    let started = Instant::now();
    let built = DurableVcsr::from_edges(edges, options).unwrap();
    let build = started.elapsed().as_secs_f64();
    built.close().unwrap();
    let started = Instant::now();
    let kept = DurableVcsr::open_read_only(&dir).unwrap();
    let open_read_only = started.elapsed().as_secs_f64();
    let (kept_pr, kept_pull) = time_pagerank(&kept);
    drop(kept);
    let _ = std::fs::remove_dir_all(&dir);
    let (vcsr, _) = vcsr_replay(edges, 1 << 16, false);
    let (vcsr_pr, _) = time_pagerank(&vcsr);
    drop(vcsr);
    let (vcsr_in, _) = vcsr_replay(edges, 1 << 16, true);
    let (vcsr_pull_pr, vcsr_pull) = time_pagerank(&vcsr_in);
    drop(vcsr_in);

    println!();
    println!("| whole stream | value |");
    println!("|---|---|");
    println!(
        "| replay, no commit until the end | {} ({:.2} s; {} rebalances, {} rewrites, {} log merges, {} checkpoints) |",
        rate(edges.len(), seconds),
        seconds,
        stats.rebalances,
        stats.rewrites,
        stats.log_merges,
        stats.checkpoints
    );
    println!("| PageRank (push, 20 iterations), durable store | {durable_pr:.3} s |");
    println!(
        "| PageRank (push), Vcsr | {vcsr_pr:.3} s (durable {:.2}x) |",
        durable_pr / vcsr_pr
    );
    println!(
        "| PageRank (push), Csr | {csr_pr:.3} s (durable {:.2}x) |",
        durable_pr / csr_pr
    );
    println!(
        "| PageRank ({}), kept durable store with in-edges, read-only open | {kept_pr:.3} s |",
        if kept_pull { "pull" } else { "push" }
    );
    println!(
        "| PageRank ({}), Vcsr with in-edges | {vcsr_pull_pr:.3} s (durable {:.2}x) |",
        if vcsr_pull { "pull" } else { "push" },
        kept_pr / vcsr_pull_pr
    );
    println!(
        "| bulk build with in-edges (`from_edges`), read-only open | {build:.2} s, {:.1} ms |",
        open_read_only * 1e3
    );
    if args.sqlite {
        let sqlite_cap = edges.len().min(args.sqlite_cap);
        let db = fresh(&args.dir, "sqlite-pr.db");
        let (conn, _) = sqlite_replay(&edges[..sqlite_cap], Sync::None, &db);
        let sqlite_pr = sqlite_pagerank(&conn);
        drop(conn);
        remove_sqlite(&db);
        println!(
            "| PageRank, SQLite (read {sqlite_cap} edges out, build Csr, run) | {sqlite_pr:.3} s |"
        );
    }
    println!(
        "| file bytes per edge (edge array + logs + checksums + undo + log) | {:.1} (Csr: {:.1} in memory) |",
        file_bytes as f64 / edges.len() as f64,
        csr.memory_bytes() as f64 / edges.len() as f64
    );
    println!(
        "| memory_bytes per edge (DRAM vertex array + mapped files) | {:.1} |",
        memory as f64 / edges.len() as f64
    );
    println!(
        "| close (checkpoint + state file) | {:.1} ms |",
        close * 1e3
    );
    println!(
        "| clean reopen (checksums verified) | {:.1} ms ({:.1} ms per M edges) |",
        reopen * 1e3,
        reopen * 1e3 / m
    );
    println!(
        "| crash recovery after the clean close (checksums, scan; empty log) | {:.1} ms ({:.1} ms per M edges) |",
        recovery * 1e3,
        recovery * 1e3 / m
    );
    println!(
        "| crash recovery after a crash mid-stream (checksums, scan, {replayed} updates replayed from the log) | {:.1} ms ({:.2} M updates/s replayed) |",
        log_recovery * 1e3,
        replayed as f64 / log_recovery / 1e6
    );
}

/// `--checkpoint-mib`, for `durable_replay`.
static CHECKPOINT_MIB: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(64);

fn main() {
    let args = args();
    CHECKPOINT_MIB.store(args.checkpoint_mib, std::sync::atomic::Ordering::Relaxed);
    println!("uptime before: {}", uptime());
    for name in &args.datasets {
        let Some((title, edges)) = load(name, args.kron_scale) else {
            continue;
        };
        println!("\n### {title}: {} edges\n", edges.len());
        sync_table(&args, &edges);
        if args.whole {
            whole_stream(&args, &edges);
        }
    }
    println!("\nuptime after: {}", uptime());
}
