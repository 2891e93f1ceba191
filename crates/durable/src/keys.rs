//! The keys of a keyed durable store ([`dyngraph_core::Keyed`] over
//! [`DurableVcsr`]): the [`IdMap`] kept in the store's directory beside the
//! edges, so that a store reopened after a close or a crash names its
//! vertices as they were named when their edges were acknowledged.
//!
//! The keys file is replaced whole (written to a temporary name, synced,
//! renamed, the directory synced) by [`DurableVcsr::sync_keyed`], which
//! writes it *before* it makes the edges durable. An id map only grows, so
//! the keys on disk always cover every vertex of the acknowledged edges; a
//! crash between the two leaves keys for vertices whose edges were lost,
//! and [`DurableVcsr::open_keyed`] gives those keys isolated vertices
//! (they are still interned, as they were before the crash). Writing the
//! whole map costs its bytes per sync: fine for maps of millions of keys
//! synced every few seconds; an append-only key log is the step past that.

use crate::{DurableOptions, DurableVcsr};
use dyngraph_core::{
    Edge, Error, Graph, GraphUpdate, IdMap, Keyed, OutNeighbors, Result, VertexId,
};
use std::fs::File;
use std::io::Write;
use std::path::Path;

/// The keys file's name in the store's directory.
pub const KEYS_FILE: &str = "keys.dgid";

fn io(path: &Path, error: std::io::Error) -> Error {
    Error::Io {
        path: path.to_path_buf(),
        source: error,
    }
}

impl DurableVcsr {
    /// Makes a keyed store durable: writes `keyed`'s keys to the store's
    /// directory (replacing the previous keys whole, atomically), then
    /// syncs the edges ([`DurableVcsr::sync`]). After it returns, a crash
    /// reopens ([`DurableVcsr::open_keyed`]) to these edges under these
    /// keys.
    ///
    /// Under a [`SyncPolicy`](crate::SyncPolicy) that syncs on its own
    /// (every edge or batch), edges become durable between calls too, and
    /// a crash may then find vertices the keys file does not name yet:
    /// give keyed stores [`SyncPolicy::Explicit`](crate::SyncPolicy) and
    /// call this at each sync point.
    ///
    /// # Errors
    /// An I/O error naming the file; the store's [`DurableVcsr::sync`].
    pub fn sync_keyed(keyed: &mut Keyed<DurableVcsr>) -> Result<()> {
        keyed.with_parts_mut(|store, ids| {
            write_keys(&store.dir().join(KEYS_FILE), ids)?;
            store.sync()
        })
    }

    /// Opens the keyed store in `dir` (recovering it if it crashed): the
    /// edges, and the keys last written by [`DurableVcsr::sync_keyed`].
    ///
    /// After a crash, the store may hold updates made after the last
    /// `sync_keyed` (a killed process leaves its log writes in the page
    /// cache), some on vertices whose keys were never saved. Those edges
    /// were not acknowledged under their keys: they are deleted (and the
    /// deletion synced), and the unnamed vertices stay isolated until new
    /// keys take them ([`Keyed::resume`]). Keys saved for vertices whose
    /// edges were lost come back as isolated vertices.
    ///
    /// # Errors
    /// An I/O error naming the keys file when the directory holds none;
    /// [`Error::InvalidStructure`] for a damaged keys file; the store's
    /// open errors.
    pub fn open_keyed(
        dir: impl AsRef<Path>,
        options: &DurableOptions,
    ) -> Result<Keyed<DurableVcsr>> {
        let dir = dir.as_ref();
        let mut store = DurableVcsr::open_with(dir, options)?;
        let path = dir.join(KEYS_FILE);
        let bytes = std::fs::read(&path).map_err(|e| io(&path, e))?;
        let ids = IdMap::from_bytes(&bytes)
            .map_err(|e| Error::InvalidStructure(format!("{}: {e}", path.display())))?;
        let named = ids.len();
        let vertices = store.vertex_count();
        if named > vertices {
            store.add_vertices(named - vertices)?;
        } else if named < vertices {
            let named = named as VertexId;
            let unnamed: Vec<Edge> = (0..vertices as VertexId)
                .flat_map(|v| {
                    store
                        .out_neighbors(v)
                        .filter(move |&w| v >= named || w >= named)
                        .map(move |w| Edge::new(v, w))
                })
                .collect();
            if !unnamed.is_empty() {
                store.delete_edges(&unnamed)?;
                store.sync()?;
            }
        }
        Keyed::resume(store, ids)
    }
}

impl DurableVcsr {
    /// The keys kept in the store's directory `dir` (a keyed store's
    /// [`KEYS_FILE`]), or `None` for a store that keeps none: its vertex
    /// ids are the graph's own. For a command line that names a kept
    /// store's vertices by key without opening it for writing.
    ///
    /// # Errors
    /// An I/O error naming the keys file; [`Error::InvalidStructure`] for
    /// a damaged one.
    pub fn read_keys(dir: impl AsRef<Path>) -> Result<Option<IdMap>> {
        let path = dir.as_ref().join(KEYS_FILE);
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io(&path, e)),
        };
        IdMap::from_bytes(&bytes)
            .map(Some)
            .map_err(|e| Error::InvalidStructure(format!("{}: {e}", path.display())))
    }
}

/// Writes `keys` into `dir` for the store there, after checking that they
/// extend the keys it keeps (a map only grows: the same key for every
/// vertex already named). `kept` is the map the directory held (`None`
/// for a new store).
pub(crate) fn save_keys(dir: &Path, keys: &IdMap, kept: Option<&IdMap>) -> Result<()> {
    if let Some(kept) = kept {
        let extends = kept.kind() == keys.kind()
            && kept.len() <= keys.len()
            && (0..kept.len() as VertexId).all(|v| kept.original(v) == keys.original(v));
        if !extends {
            return Err(Error::InvalidArgument(format!(
                "{}: the keys given do not extend the {} {} keys the store keeps (a key map \
                 only grows: every kept vertex keeps its key)",
                dir.display(),
                kept.len(),
                kept.kind()
            )));
        }
    }
    write_keys(&dir.join(KEYS_FILE), keys)
}

/// `ids` to `path` under a temporary name, synced, renamed over `path`,
/// the directory synced: a crash leaves the old keys or the new, whole.
fn write_keys(path: &Path, ids: &IdMap) -> Result<()> {
    let temporary = path.with_extension("dgid.tmp");
    let mut file = File::create(&temporary).map_err(|e| io(&temporary, e))?;
    file.write_all(&ids.to_bytes())
        .and_then(|()| file.sync_data())
        .map_err(|e| io(&temporary, e))?;
    drop(file);
    std::fs::rename(&temporary, path).map_err(|e| io(path, e))?;
    let dir = path.parent().unwrap_or(Path::new("."));
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| io(dir, e))
}
