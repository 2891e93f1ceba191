//! Text formats and their detection.

use std::path::Path;

/// A text edge format the loader reads and writes.
///
/// | format | extension | lines | third column |
/// |---|---|---|---|
/// | [`Format::MatrixMarket`] | `.mtx` | banner, `%` comments, size line, then `row col [value]`, 1-based | the header's field: none for `pattern`, an `f32` weight for `integer`/`real` |
/// | [`Format::Snap`] | `.txt`, `.snap` | `src dst [third]`, ids as given (0 allowed) | a `u64` timestamp by default (SNAP temporal graphs); a weight or ignored by [`crate::LoadOptions::third_column`] |
/// | [`Format::Csv`] | `.csv`, `.tsv` | `src,dst[,third]` with `,` `;` or a tab ([`crate::Delimiter`]) | as [`Format::Snap`] |
/// | [`Format::EdgeList`] | `.el` | `src dst` | none (a third field is an error unless [`crate::LoadOptions::third_column`] asks for one) |
/// | [`Format::WeightedEdgeList`] | `.wel` | `src dst weight` | an `f32` weight |
///
/// All of them accept `#` and `%` comment lines (a line whose first
/// non-blank byte is one of them), blank lines, spaces or tabs between
/// fields (around them, with a delimiter), trailing spaces, CRLF line ends,
/// a UTF-8 byte-order mark and a missing final newline. The edge lists take
/// a header row with [`crate::LoadOptions::header`]. Any of them may be
/// gzip-compressed (`.gz`); compression is recognised from the gzip magic
/// bytes, whatever the name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// Matrix Market coordinate format (`%%MatrixMarket matrix coordinate
    /// pattern|integer|real general|symmetric`).
    MatrixMarket,
    /// A SNAP-style edge list: two or three whitespace-separated columns,
    /// the count fixed by the first data line.
    Snap,
    /// `.el`: exactly two columns.
    EdgeList,
    /// `.wel`: exactly three columns, the third a weight.
    WeightedEdgeList,
    /// Delimited values (CSV, TSV): the columns of [`Format::Snap`],
    /// separated by one delimiter ([`crate::Delimiter`]), detected from the
    /// first data line unless [`crate::LoadOptions::delimiter`] chooses
    /// it. Written with commas (tabs for a `.tsv` name).
    Csv,
}

impl Format {
    /// The format an extension names, ignoring a trailing `.gz`
    /// (`graph.mtx.gz` is Matrix Market). `None` for an unknown extension.
    ///
    /// ```
    /// use dyngraph_loader::Format;
    /// assert_eq!(Format::from_path("a/web.mtx.gz"), Some(Format::MatrixMarket));
    /// assert_eq!(Format::from_path("CollegeMsg.txt"), Some(Format::Snap));
    /// assert_eq!(Format::from_path("g.wel"), Some(Format::WeightedEdgeList));
    /// assert_eq!(Format::from_path("people.tsv"), Some(Format::Csv));
    /// assert_eq!(Format::from_path("g.bin"), None);
    /// ```
    pub fn from_path(path: impl AsRef<Path>) -> Option<Format> {
        let path = path.as_ref();
        let name = path.file_name()?.to_str()?;
        let name = name
            .strip_suffix(".gz")
            .or_else(|| name.strip_suffix(".GZ"))
            .unwrap_or(name);
        let extension = Path::new(name).extension()?.to_str()?.to_ascii_lowercase();
        match extension.as_str() {
            "mtx" => Some(Format::MatrixMarket),
            "txt" | "snap" => Some(Format::Snap),
            "csv" | "tsv" => Some(Format::Csv),
            "el" => Some(Format::EdgeList),
            "wel" => Some(Format::WeightedEdgeList),
            _ => None,
        }
    }

    /// The format of a file: Matrix Market whenever its (decompressed) text
    /// starts with the `%%MatrixMarket` banner, whatever its name; otherwise
    /// the extension's format; otherwise [`Format::Snap`].
    pub fn detect(path: Option<&Path>, head: &[u8]) -> Format {
        if has_matrix_market_banner(head) {
            return Format::MatrixMarket;
        }
        path.and_then(Format::from_path).unwrap_or(Format::Snap)
    }

    /// The usual extension, without the dot.
    pub fn extension(self) -> &'static str {
        match self {
            Format::MatrixMarket => "mtx",
            Format::Snap => "txt",
            Format::EdgeList => "el",
            Format::WeightedEdgeList => "wel",
            Format::Csv => "csv",
        }
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Format::MatrixMarket => "Matrix Market",
            Format::Snap => "SNAP edge list",
            Format::EdgeList => "edge list (.el)",
            Format::WeightedEdgeList => "weighted edge list (.wel)",
            Format::Csv => "delimited edge list (.csv/.tsv)",
        })
    }
}

/// How to read the third column of an edge-list line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum ThirdColumn {
    /// An `f32` weight.
    Weight,
    /// A `u64` timestamp.
    Timestamp,
    /// Required to be present and non-empty, but not parsed or kept (load a
    /// temporal graph as a plain one).
    Ignore,
}

pub(crate) const MATRIX_MARKET_BANNER: &[u8] = b"%%MatrixMarket";

pub(crate) fn has_matrix_market_banner(head: &[u8]) -> bool {
    head.len() >= MATRIX_MARKET_BANNER.len()
        && head[..MATRIX_MARKET_BANNER.len()].eq_ignore_ascii_case(MATRIX_MARKET_BANNER)
}

/// `true` when `bytes` start with the gzip magic number.
pub(crate) fn is_gzip(bytes: &[u8]) -> bool {
    bytes.starts_with(&[0x1f, 0x8b])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn banner_beats_extension() {
        let head = b"%%MatrixMarket matrix coordinate pattern general\n";
        assert_eq!(
            Format::detect(Some(Path::new("x.txt")), head),
            Format::MatrixMarket
        );
        assert_eq!(
            Format::detect(Some(Path::new("x.el")), b"1 2\n"),
            Format::EdgeList
        );
        assert_eq!(Format::detect(None, b"1 2\n"), Format::Snap);
        assert_eq!(
            Format::from_path("G.WEL.GZ"),
            Some(Format::WeightedEdgeList)
        );
        assert_eq!(Format::from_path("noext"), None);
    }
}
