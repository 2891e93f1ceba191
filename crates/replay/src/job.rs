//! A replay as one library call: a [`ReplaySpec`] in, a [`Report`] out.
//!
//! The spec says everything `dyngraph replay` takes on its command line:
//! the input, the stores (by [`StoreKind`]), base, batches, order, window,
//! capabilities, kernels and checkpoints. [`run`] reads the input, plans
//! the capabilities, replays into each store through the registry and the
//! engine, and returns the report; the CLI only parses arguments into a
//! spec and prints the report.
//!
//! ```
//! use dyngraph_replay::{ReplaySpec, run};
//! use dyngraph_stores::StoreKind;
//! use dyngraph_kernels::KernelName;
//! use std::sync::atomic::AtomicBool;
//!
//! let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/CollegeMsg.txt");
//! let mut spec = ReplaySpec::new(path);
//! spec.stores = vec![StoreKind::Vcsr, StoreKind::Csrpp];
//! spec.replay.batch = 1000;
//! spec.kernels = vec![KernelName::PageRank];
//! spec.verify = true;
//! let report = run(&spec, &mut (), &AtomicBool::new(false))?;
//! assert_eq!(report.stores.len(), 2);
//! assert_eq!(report.stores[0].edges, 59_835);
//! assert!(report.verify_failures.is_empty());
//! # Ok::<(), dyngraph_core::Error>(())
//! ```

use crate::checkpoints::KernelCheckpoints;
use crate::engine::{ReplayOptions, StoreSummary, replay};
use crate::hooks::{Hooks, ReplayProgress};
use crate::kept;
use crate::maintained::{BoundMethod, KernelMode, MaintainedKernels};
use crate::plan::{Choice, plan};
use crate::report::{InputSummary, Report};
use crate::window::Window;
use dyngraph_core::{DynamicStore, Error, IdKind, Result, Semantics, VertexId};
use dyngraph_kernels::KernelName;
use dyngraph_loader::Order;
use dyngraph_loader::{EdgeStream, LoadOptions, load_edge_stream};
use dyngraph_stores::{KeptStore, StoreKind, StoreSettings, StoreVisitor};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

/// Everything a replay job is asked to do.
#[derive(Clone, Debug)]
pub struct ReplaySpec {
    /// The input: any format the loader reads.
    pub input: PathBuf,
    /// How the input is read.
    pub load: LoadOptions,
    /// The stores to replay into, one after another over the same stream
    /// (repeats are replayed once).
    pub stores: Vec<StoreKind>,
    /// Knobs of particular stores (gap policy, durable directory, sync).
    pub settings: StoreSettings,
    /// Base percentage, batch size, window, semantics, timed group.
    pub replay: ReplayOptions,
    /// Arrival order.
    pub order: Order,
    /// Seed for [`Order::Shuffle`].
    pub seed: u64,
    /// Insert every edge in both directions.
    pub undirected: bool,
    /// Keep in-edges: [`Choice::Auto`] when a kernel uses them.
    pub in_edges: Choice,
    /// Keep weights: [`Choice::Auto`] when the input has them.
    pub weights: Choice,
    /// Kernels to run at checkpoints and at the end.
    pub kernels: Vec<KernelName>,
    /// From scratch at each checkpoint, maintained across batches, or
    /// both side by side.
    pub mode: KernelMode,
    /// Run the kernels every this many batches (`None`: at the end only).
    pub every: Option<usize>,
    /// Check every kernel result with its verifier.
    pub verify: bool,
    /// The source of BFS and SSSP; default: the first arrival's source.
    pub source: Option<SourceVertex>,
    /// Maintained PageRank to this L1 bound on the normalised ranks (and
    /// runs from scratch beside it to the same bound); `None`: the crate's
    /// default strategy (DF-P).
    pub pagerank_bound: Option<f64>,
    /// How the maintained PageRank keeps [`ReplaySpec::pagerank_bound`].
    pub pagerank_method: BoundMethod,
    /// For the verifier's own tests: the maintained PageRank stops at this bound while
    /// the report and `verify` hold it to [`ReplaySpec::pagerank_bound`],
    /// a broken bound that `verify` must catch. `None` in every real run.
    #[doc(hidden)]
    pub pagerank_stop_bound_for_tests: Option<f64>,
}

/// The vertex BFS and SSSP start from, as the caller names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SourceVertex {
    /// A vertex id of the replayed graph.
    Vertex(VertexId),
    /// As a user writes it (`--source`): the original id or key when the
    /// input's ids were relabelled (or a kept store keeps keys), else a
    /// vertex id in decimal.
    Named(String),
}

impl SourceVertex {
    /// The vertex this names in `stream`, checked against its vertices.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming `--source`: a key the stream does
    /// not have, an id past its vertices, text that is neither.
    pub fn resolve(&self, stream: &EdgeStream) -> Result<VertexId> {
        let vertices = stream.vertex_count();
        let refuse = |why: String| Err(Error::InvalidArgument(format!("--source {why}")));
        let vertex = match (self, stream.ids()) {
            (SourceVertex::Vertex(v), _) => *v,
            (SourceVertex::Named(text), Some(ids)) => {
                let found = match ids.kind() {
                    IdKind::Integers => text
                        .parse::<u64>()
                        .ok()
                        .and_then(|k| ids.vertex_of_integer(k)),
                    IdKind::Strings => ids.vertex_of_str(text),
                };
                match found {
                    Some(v) => v,
                    None => {
                        return refuse(format!(
                            "{text}: no vertex has that {} (the input's {} ids were relabelled; \
                             --source names a vertex by its original id)",
                            if ids.kind() == IdKind::Strings {
                                "key"
                            } else {
                                "id"
                            },
                            ids.kind()
                        ));
                    }
                }
            }
            (SourceVertex::Named(text), None) => match text.parse::<VertexId>() {
                Ok(v) => v,
                Err(_) => {
                    return refuse(format!(
                        "{text:?} is not a vertex id (a whole number from 0; the input's ids \
                         were not relabelled)"
                    ));
                }
            },
        };
        if vertex as usize >= vertices {
            return refuse(format!(
                "{vertex} is not a vertex of the replayed graph (it has {vertices} vertices, \
                 0..{}): pick one below that",
                vertices.saturating_sub(1)
            ));
        }
        Ok(vertex)
    }
}

impl ReplaySpec {
    /// A replay of `input` into VCSR and CSR++, edge at a time after a 10%
    /// base, in file order, no kernels: `dyngraph replay FILE`.
    pub fn new(input: impl Into<PathBuf>) -> Self {
        Self {
            input: input.into(),
            load: LoadOptions::default(),
            stores: vec![StoreKind::Vcsr, StoreKind::Csrpp],
            settings: StoreSettings::default(),
            replay: ReplayOptions::default(),
            order: Order::File,
            seed: 1,
            undirected: false,
            in_edges: Choice::Auto,
            weights: Choice::Auto,
            kernels: Vec::new(),
            mode: KernelMode::Static,
            every: None,
            verify: false,
            source: None,
            pagerank_bound: None,
            pagerank_method: BoundMethod::default(),
            pagerank_stop_bound_for_tests: None,
        }
    }

    /// The stores in order, each once.
    pub fn unique_stores(&self) -> Vec<StoreKind> {
        let mut unique = Vec::new();
        for &kind in &self.stores {
            if !unique.contains(&kind) {
                unique.push(kind);
            }
        }
        unique
    }

    /// Checks what can be checked before the input is read.
    fn check(&self) -> Result<()> {
        if self.stores.is_empty() {
            return Err(Error::InvalidArgument(
                "no store to replay into: name at least one".into(),
            ));
        }
        Ok(())
    }
}

/// Reads the spec's input into the stream it replays: reordered, doubled
/// when undirected. An input without edges is an error.
pub fn read_stream(spec: &ReplaySpec) -> Result<EdgeStream> {
    prepare_stream(spec, load_edge_stream(&spec.input, &spec.load)?)
}

/// The stream the spec replays from its input's edges, read by the caller
/// (for example a binary edge stream mapped with
/// [`dyngraph_loader::map_edge_stream`], whose columns a replay in file
/// order then reads in place): reordered, doubled when undirected, its
/// vertex count the vertices its edges name
/// ([`EdgeStream::shrink_vertex_count`]: the stores hold no others, and
/// the report counts them). An input without edges is an error.
pub fn prepare_stream(spec: &ReplaySpec, mut stream: EdgeStream) -> Result<EdgeStream> {
    if stream.is_empty() {
        return Err(Error::NoEdges {
            path: spec.input.clone(),
            job: "replay",
        });
    }
    stream.shrink_vertex_count();
    stream.reorder(spec.order, spec.seed)?;
    if spec.undirected {
        stream = stream.symmetrized();
    }
    if let Some(Window::Time(_)) = spec.replay.window
        && stream.timestamps().is_none()
    {
        return Err(Error::InvalidArgument(format!(
            "window {} is in timestamp units but {} has no timestamp column: use an edge count such as 5000edges",
            spec.replay
                .window
                .map(|w| w.to_string())
                .unwrap_or_default(),
            spec.input.display()
        )));
    }
    Ok(stream)
}

/// Runs the replay the spec describes on this machine: every store in
/// turn over the same stream, kernels at the checkpoints. Stops between
/// timed groups once `stop` is set (the store's summary then says
/// `interrupted`, and later stores are skipped).
pub fn run(
    spec: &ReplaySpec,
    progress: &mut dyn ReplayProgress,
    stop: &AtomicBool,
) -> Result<Report> {
    run_reading(
        spec,
        |spec| load_edge_stream(&spec.input, &spec.load),
        progress,
        stop,
    )
}

/// [`run`] with the input's edges read by `read` (after the spec's checks):
/// the way to hand the job a mapped binary edge stream.
pub fn run_reading(
    spec: &ReplaySpec,
    read: impl FnOnce(&ReplaySpec) -> Result<EdgeStream>,
    progress: &mut dyn ReplayProgress,
    stop: &AtomicBool,
) -> Result<Report> {
    spec.check()?;
    let Some(kept) = KeptStore::find(&spec.stores, &spec.settings)? else {
        let stream = prepare_stream(spec, read(spec)?)?;
        return run_on(spec, &stream, progress, stop);
    };
    // A kept store decides how the input's ids are read, and maps them
    // onto its vertices.
    let mut spec = spec.clone();
    let in_edges_reason = kept_in_edges(&kept, &mut spec);
    let asked = spec.load.ids;
    spec.load.ids = kept::id_mode(&kept, asked)?;
    let edges = read(&spec).map_err(|error| kept::explain_read_error(&kept, error, asked))?;
    let mut stream = prepare_stream(&spec, edges)?;
    let appending = matches!(kept, KeptStore::Append { .. });
    let (keys, note) = kept::attach(kept, &mut stream, &spec.input)?;
    spec.settings.durable_keys = keys;
    let mut report = run_on(&spec, &stream, progress, stop)?;
    if let Some(reason) = in_edges_reason {
        report.input.in_edges = reason;
    }
    if appending && let Some(dir) = &spec.settings.durable_dir {
        report.notes.push(format!(
            "appending to the durable store in {} (the base goes in as one batch)",
            dir.display()
        ));
    }
    report.notes.extend(note);
    Ok(report)
}

/// In-edges under [`Choice::Auto`] for a kept durable store, and why (the
/// reason the report shows): a new store keeps them, so that a later run's
/// kernels find them (a store's layout is fixed when it is created, and
/// `auto` on day 1 without a kernel left them out, so day 2's
/// `--append --kernel pr` was refused); an append follows the store.
/// `None` when they were asked for or against.
fn kept_in_edges(kept: &KeptStore, spec: &mut ReplaySpec) -> Option<String> {
    if spec.in_edges != Choice::Auto {
        return None;
    }
    let (on, reason) = match kept {
        KeptStore::New => (
            true,
            "on (auto: a new kept durable store keeps them for later runs' kernels; \
             --in-edges off leaves them out)"
                .to_string(),
        ),
        KeptStore::Append { in_edges, .. } => (
            *in_edges,
            format!(
                "{} (auto: as the kept durable store holds them)",
                if *in_edges { "on" } else { "off" }
            ),
        ),
    };
    spec.in_edges = if on { Choice::On } else { Choice::Off };
    Some(reason)
}

/// [`run`] on a stream already read (with [`read_stream`]).
pub fn run_on(
    spec: &ReplaySpec,
    stream: &EdgeStream,
    progress: &mut dyn ReplayProgress,
    stop: &AtomicBool,
) -> Result<Report> {
    let plan = plan(
        spec.replay.semantics,
        spec.in_edges,
        spec.weights,
        &spec.kernels,
        stream.weights().is_some(),
    );
    let source = match &spec.source {
        Some(source) => source.resolve(stream)?,
        None => stream.src().first().copied().unwrap_or(0),
    };
    let mut notes = Vec::new();
    if let Some(ids) = stream.ids() {
        notes.push(format!("{}: {}", spec.input.display(), ids.relabel_note()));
    }
    let mut summaries = Vec::new();
    let mut verify_failures = Vec::new();
    for kind in spec.unique_stores() {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let (shared, dropped) = kind.fit(plan.options);
        notes.extend(dropped);
        let from_scratch: Vec<KernelName> = spec
            .kernels
            .iter()
            .copied()
            .filter(|&k| !spec.mode.maintains(k))
            .collect();
        let keep_outputs = progress.wants_results();
        let mut checkpoints = KernelCheckpoints::new(from_scratch, spec.every, spec.verify, source)
            .with_ids(stream.shared_ids().cloned())
            .keeping_outputs(keep_outputs);
        let mut maintained =
            MaintainedKernels::new(&spec.kernels, spec.mode, spec.every, spec.verify, source)
                .with_pagerank_bound(spec.pagerank_bound)
                .with_pagerank_method(spec.pagerank_method)
                .with_pagerank_stop_bound_for_tests(spec.pagerank_stop_bound_for_tests)
                .keeping_outputs(keep_outputs);
        let base = ((stream.len() as f64) * spec.replay.base_percent / 100.0).floor() as u64;
        progress.start(kind, stream.len() as u64 - base);
        let work = ReplayOne {
            stream,
            options: &spec.replay,
            hooks: Hooks {
                progress: &mut *progress,
                base,
                store: kind,
                ids: stream.ids(),
                kernels: (&mut checkpoints, &mut maintained),
            },
            stop,
        };
        let mut summary = kind.visit(&spec.settings, shared, work)?;
        progress.finish();
        summary.store = kind.name().to_string();
        summary.kernels = std::mem::take(&mut checkpoints.latest);
        summary.kernel_timeline = std::mem::take(&mut checkpoints.timeline);
        summary.maintained = maintained.take_summaries();
        verify_failures.extend(
            maintained
                .failures
                .iter()
                .map(|failure| format!("{}: {failure}", kind.name())),
        );
        verify_failures.extend(
            checkpoints
                .failures
                .iter()
                .map(|failure| format!("{}: {failure}", kind.name())),
        );
        summaries.push(summary);
    }
    notes.dedup();
    Ok(Report {
        input: InputSummary {
            path: spec.input.clone(),
            edges: stream.len() as u64,
            vertices: stream.vertex_count() as u64,
            order: spec.order,
            seed: spec.seed,
            base_pct: spec.replay.base_percent,
            batch: spec.replay.batch,
            window: spec.replay.window.map(|w| w.to_string()),
            undirected: spec.undirected,
            simple: spec.replay.semantics == Semantics::Simple,
            in_edges: plan.in_edges_reason,
            weights: plan.weights_reason,
            threads: rayon::current_num_threads(),
        },
        stores: summaries,
        notes,
        verify_failures,
    })
}

/// One store's replay, generic over the store type.
struct ReplayOne<'a> {
    stream: &'a EdgeStream,
    options: &'a ReplayOptions,
    hooks: Hooks<'a>,
    stop: &'a AtomicBool,
}

impl StoreVisitor for ReplayOne<'_> {
    type Output = Result<StoreSummary>;

    fn visit<S: DynamicStore + 'static>(mut self, options: S::Options) -> Result<StoreSummary> {
        let (summary, _store): (StoreSummary, S) = replay(
            options,
            self.stream,
            self.options,
            self.stop,
            &mut self.hooks,
        )?;
        Ok(summary)
    }
}
