//! A replay into a kept durable store (`durable` with a directory): what
//! the directory holds decides whether the store may be created there,
//! how the input's ids are read, and how they map onto the vertices the
//! store keeps.
//!
//! A store created from relabelled ids (sparse or 64-bit integers,
//! strings) keeps its key map beside its edges; an append reads the new
//! file's ids the same way and maps each key through the kept map, new
//! keys taking new vertices, so a key names one vertex across every day's
//! file. A store kept with the graph's own vertex ids refuses a file whose
//! ids need relabelling, and a keyed store a file read as raw vertex ids:
//! either would silently give unrelated vertices the same id.

use dyngraph_core::{Error, IdKind, IdMap, Result, VertexId};
use dyngraph_loader::{EdgeStream, IdMode};
use dyngraph_stores::KeptStore;
use std::path::Path;
use std::sync::Arc;

/// How the input's ids are read for `kept`: an append reads them as
/// the kept store's were (`auto` becomes the kept keys' kind, or `keep`
/// for a store of plain vertex ids), and a mode that cannot map onto the
/// kept vertices is refused, naming the flag to use.
pub(crate) fn id_mode(kept: &KeptStore, asked: IdMode) -> Result<IdMode> {
    let KeptStore::Append { dir, keys, .. } = kept else {
        return Ok(asked);
    };
    let shown = dir.display();
    match (keys.as_ref().map(IdMap::kind), asked) {
        (Some(kind), IdMode::Auto) => Ok(match kind {
            IdKind::Integers => IdMode::Integers,
            IdKind::Strings => IdMode::Strings,
        }),
        (Some(IdKind::Integers), IdMode::Integers) | (Some(IdKind::Strings), IdMode::Strings) => {
            Ok(asked)
        }
        (Some(kind), IdMode::Integers | IdMode::Strings) => Err(Error::InvalidArgument(format!(
            "{shown} names its vertices by {kind} keys, and --ids {} reads the file's \
                 as the other kind: use --ids auto or {}",
            mode_name(asked),
            ids_flag(kind)
        ))),
        (Some(kind), _) => Err(Error::InvalidArgument(format!(
            "{shown} names its vertices by {kind} keys, so a file appended to it is read \
                 the same way: use --ids auto or {} (--ids {} would take the file's ids for \
                 the store's vertex ids and merge unrelated vertices)",
            ids_flag(kind),
            mode_name(asked)
        ))),
        (None, IdMode::Auto | IdMode::Keep) => Ok(IdMode::Keep),
        (None, IdMode::Dense) => Ok(IdMode::Dense),
        (None, _) => Err(Error::InvalidArgument(format!(
            "{shown} keeps the graph's own vertex ids (it was created without relabelling), \
                 so a file appended to it cannot be relabelled: use --ids keep or --ids dense \
                 (--ids {} would number this file's keys from 0 and merge them with the \
                 store's vertices)",
            mode_name(asked)
        ))),
    }
}

/// Explains an error of reading the input for an append to a store of
/// plain vertex ids: sparse ids that `auto` would have relabelled.
pub(crate) fn explain_read_error(kept: &KeptStore, error: Error, asked: IdMode) -> Error {
    match (kept, error) {
        (
            KeptStore::Append {
                dir, keys: None, ..
            },
            Error::SparseIds {
                path,
                largest,
                distinct,
            },
        ) if asked == IdMode::Auto => Error::InvalidArgument(format!(
            "{} keeps the graph's own vertex ids (it was created without relabelling), \
                 but the ids of {} are sparse (up to {largest}, {distinct} distinct), which \
                 --ids auto would relabel from 0 and merge with the store's vertices: append \
                 with --ids dense to take them as vertex ids, or keep this file in a store \
                 of its own",
            dir.display(),
            path.as_deref()
                .map_or_else(|| "the input".into(), |p| p.display().to_string())
        )),
        (_, error) => error,
    }
}

/// Maps the stream's vertices onto the kept store's and returns the key
/// map the store keeps after this replay (`None`: plain vertex ids), with
/// a note for the report.
///
/// # Errors
/// A relabelled stream for a store of plain ids, or the reverse.
pub(crate) fn attach(
    kept: KeptStore,
    stream: &mut EdgeStream,
    input: &Path,
) -> Result<(Option<Arc<IdMap>>, Option<String>)> {
    match kept {
        KeptStore::New => Ok((stream.shared_ids().cloned(), None)),
        KeptStore::Append {
            dir, keys: None, ..
        } => match stream.ids() {
            None => Ok((None, None)),
            Some(ids) => Err(Error::InvalidArgument(format!(
                "{} keeps the graph's own vertex ids, but {} names its vertices ({}): \
                     they cannot be mapped onto the store's; keep this file in a store of its \
                     own",
                dir.display(),
                input.display(),
                ids.relabel_note()
            ))),
        },
        KeptStore::Append {
            dir,
            keys: Some(mut kept),
            ..
        } => {
            let Some(local) = stream.take_ids() else {
                return Err(Error::InvalidArgument(format!(
                    "{} names its vertices by keys, but {} was read without relabelling: \
                         use --ids auto",
                    dir.display(),
                    input.display()
                )));
            };
            let before = kept.len();
            let global: Vec<VertexId> = (0..local.len() as VertexId)
                .map(|v| kept.intern(local.original(v)))
                .collect::<Result<_>>()?;
            let kept = Arc::new(kept);
            stream.relabel_onto(&global, Arc::clone(&kept))?;
            let note = format!(
                "{}: its {} keys mapped onto the {before} keys {} keeps ({} new)",
                input.display(),
                local.len(),
                dir.display(),
                kept.len() - before
            );
            Ok((Some(kept), Some(note)))
        }
    }
}

/// The flag that reads ids as `kind` keys.
fn ids_flag(kind: IdKind) -> &'static str {
    match kind {
        IdKind::Integers => "--ids integers",
        IdKind::Strings => "--ids strings",
    }
}

fn mode_name(mode: IdMode) -> &'static str {
    match mode {
        IdMode::Keep => "keep",
        IdMode::Auto => "auto",
        IdMode::Dense => "dense",
        IdMode::Integers => "integers",
        IdMode::Strings => "strings",
    }
}
