//! Opening a graph file for the commands that need a `Csr`: a binary `Csr`
//! file (`dyngraph convert in.txt g.dgcsr`), recognised by its magic bytes
//! whatever its name, is mapped and used in place without a copy; any
//! other file (a pipe or `-` included, read once) goes through the
//! loader's text readers, with a note when its ids were relabelled.

use crate::input::{input_path, note_relabelled};
use anyhow::Result;
use dyngraph::core::{Csr, CsrView, Graph, IdMap};
use dyngraph::loader::{
    CsrFile, EdgeStream, LoadOptions, is_csr_file, is_edge_stream_file, load_csr, load_edge_stream,
    map_edge_stream,
};
use std::path::Path;

/// The edges of `path` in arrival order: a binary edge stream (`.dges`,
/// recognised by its magic bytes) mapped and read in place without a copy,
/// any other file read by the loader. `-` is standard input.
pub(crate) fn open_stream(path: &Path, options: &LoadOptions) -> Result<EdgeStream> {
    Ok(read_edges(path, options)?)
}

/// [`open_stream`] with the library's error, for the replay job's reader.
pub(crate) fn read_edges(path: &Path, options: &LoadOptions) -> dyngraph::core::Result<EdgeStream> {
    let path = &input_path(path);
    if is_edge_stream_file(path)? {
        // SAFETY: the map is read-only and lives while the command runs.
        // Its soundness rests on nobody modifying or truncating the file
        // meanwhile, the condition the CLI documents for every input (the
        // text readers map their files too). dyngraph itself never writes a
        // file in place: it renames a new file over the old name, which
        // leaves a mapped file as it was.
        return unsafe { map_edge_stream(path, options) };
    }
    load_edge_stream(path, options)
}

/// A graph ready to be viewed as a `Csr`.
#[derive(Debug)]
pub(crate) enum CsrInput {
    /// Built from text.
    Built(Csr),
    /// A binary `Csr` file, mapped.
    Mapped(CsrFile),
}

impl CsrInput {
    /// Opens `path`: maps a binary `Csr` file (its header and checksum
    /// checked; [`CsrInput::view`] checks the arrays), or loads any other
    /// file with `load_csr` and `options`. A binary file without the
    /// in-edges that `options.in_edges` asks for (`dyngraph convert`
    /// always writes them) is loaded too, which builds them. `-` is
    /// standard input.
    pub(crate) fn open(path: &Path, options: &LoadOptions) -> Result<CsrInput> {
        let path = &input_path(path);
        if is_csr_file(path)? {
            // SAFETY: the map is read-only and lives while the command
            // runs. Its soundness rests on nobody modifying or truncating
            // the file meanwhile, the condition the CLI documents for every
            // input (the text readers map their files too). dyngraph itself
            // never writes a file in place: it renames a new file over the
            // old name, which leaves a mapped file as it was.
            let file = unsafe { CsrFile::open(path)? };
            if file.has_in_edges() || !options.in_edges {
                return Ok(CsrInput::Mapped(file));
            }
        }
        let csr = load_csr(path, options)?;
        note_relabelled(path, csr.ids());
        Ok(CsrInput::Built(csr))
    }

    /// The original ids of the vertices, when the file's were relabelled
    /// (or a binary file keeps them).
    pub(crate) fn ids(&self) -> Option<&IdMap> {
        match self {
            CsrInput::Built(csr) => csr.ids(),
            CsrInput::Mapped(file) => file.ids(),
        }
    }

    /// Whether the graph was mapped from a binary `Csr` file.
    pub(crate) fn is_mapped(&self) -> bool {
        matches!(self, CsrInput::Mapped(_))
    }

    /// The graph, borrowed (from the map for a binary `Csr` file, whose
    /// arrays are checked on every call: take the view once).
    pub(crate) fn view(&self) -> Result<CsrView<'_>> {
        Ok(match self {
            CsrInput::Built(csr) => csr.view(),
            CsrInput::Mapped(file) => file.view()?,
        })
    }

    /// Vertices and edges (from the header for a mapped file).
    pub(crate) fn counts(&self) -> (usize, u64) {
        match self {
            CsrInput::Built(csr) => (csr.vertex_count(), csr.edge_count()),
            CsrInput::Mapped(file) => (file.vertex_count(), file.edge_count() as u64),
        }
    }

    /// Bytes the graph occupies: the arrays of a built `Csr`, the file of
    /// a mapped one (page cache, not heap).
    pub(crate) fn memory_bytes(&self) -> usize {
        match self {
            CsrInput::Built(csr) => csr.memory_bytes(),
            CsrInput::Mapped(file) => {
                std::fs::metadata(file.path()).map_or(0, |m| m.len() as usize)
            }
        }
    }
}
