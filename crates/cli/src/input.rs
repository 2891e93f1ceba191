//! Reading graph files the way every command does: the input options
//! (`--ids`, `--delimiter`, `--header`, `--third-column`), `-` for
//! standard input, one note when ids were relabelled, and one wording for
//! a file with no edges.
//!
//! The command line relabels ids when it must (`--ids auto`, the default
//! here, where the library keeps them and refuses) and says so in one line
//! on stderr: `note: FILE: 1899 string ids relabelled as vertices ...`.

use anyhow::Result;
use clap::{Args, ValueEnum};
use dyngraph_core::IdMap;
use dyngraph_loader::{Delimiter, IdMode, LoadOptions, ThirdColumn, load_edge_stream};
use dyngraph_replay::Stream;
use std::path::{Path, PathBuf};

/// How a command reads its input file: flatten into a command's arguments
/// (`#[command(flatten)] input: InputArgs`), then
/// [`InputArgs::load_options`].
#[derive(Args, Clone, Debug, Default)]
pub(crate) struct InputArgs {
    /// How vertex ids are read. `auto`: numbers are vertex ids when dense;
    /// sparse, 64-bit and named ids are relabelled, with a note (results
    /// name the original ids). `keep`: numbers are vertex ids, a file
    /// whose numbers cannot be is refused. `dense`: numbers are vertex ids
    /// however sparse. `integers`, `strings`: always relabel.
    #[arg(long, value_enum, default_value_t = IdsArg::Auto)]
    pub(crate) ids: IdsArg,
    /// What separates the fields of an edge list: `,`, `;`, `tab` or
    /// `blanks`. Default: detected for .csv and .tsv files, blanks
    /// otherwise.
    #[arg(long, value_parser = parse_delimiter)]
    pub(crate) delimiter: Option<Delimiter>,
    /// The first data line is a header row (column names): skip it. A
    /// first line of names before numeric lines is refused without it.
    #[arg(long)]
    pub(crate) header: bool,
    /// What the third column holds. Default: the format's (a timestamp in
    /// .txt and .csv files, a weight in .wel and Matrix Market files).
    #[arg(long, value_enum)]
    pub(crate) third_column: Option<ThirdArg>,
}

/// `--ids`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub(crate) enum IdsArg {
    /// Relabel sparse, 64-bit and named ids (with a note).
    #[default]
    Auto,
    /// Keep numeric ids; refuse ids that cannot be kept.
    Keep,
    /// Numeric ids are vertex ids, however sparse.
    Dense,
    /// Relabel every id as a 64-bit integer.
    Integers,
    /// Relabel every id as a string.
    Strings,
}

/// `--third-column`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum ThirdArg {
    /// A weight (a number).
    Weight,
    /// A timestamp (a whole number from 0).
    Timestamp,
    /// Present but not read.
    Ignore,
}

fn parse_delimiter(text: &str) -> Result<Delimiter, String> {
    match text {
        "," | "comma" => Ok(Delimiter::Comma),
        ";" | "semicolon" => Ok(Delimiter::Semicolon),
        "\t" | "tab" | "\\t" => Ok(Delimiter::Tab),
        "blanks" | " " | "space" => Ok(Delimiter::Blanks),
        _ => Err(format!(
            "'{text}' is not a delimiter: use ',', ';', 'tab' or 'blanks'"
        )),
    }
}

impl InputArgs {
    /// The loader's options for these arguments (the rest at their
    /// defaults).
    pub(crate) fn load_options(&self) -> LoadOptions {
        let mut options = LoadOptions::default()
            .ids(match self.ids {
                IdsArg::Auto => IdMode::Auto,
                IdsArg::Keep => IdMode::Keep,
                IdsArg::Dense => IdMode::Dense,
                IdsArg::Integers => IdMode::Integers,
                IdsArg::Strings => IdMode::Strings,
            })
            .header(self.header);
        if let Some(delimiter) = self.delimiter {
            options = options.delimiter(delimiter);
        }
        if let Some(third) = self.third_column {
            options = options.third_column(match third {
                ThirdArg::Weight => ThirdColumn::Weight,
                ThirdArg::Timestamp => ThirdColumn::Timestamp,
                ThirdArg::Ignore => ThirdColumn::Ignore,
            });
        }
        options
    }
}

/// The file to read for an input argument: `-` is standard input, read
/// once like any pipe.
pub(crate) fn input_path(path: &Path) -> PathBuf {
    if path == Path::new("-") {
        PathBuf::from("/dev/stdin")
    } else {
        path.to_path_buf()
    }
}

/// Prints the one line that says `path`'s ids were relabelled, when they
/// were (`ids` is the stream's or the graph's map).
pub(crate) fn note_relabelled(path: &Path, ids: Option<&IdMap>) {
    if let Some(ids) = ids {
        eprintln!("note: {}: {}", path.display(), ids.relabel_note());
    }
}

/// The error for an input without a single edge, worded as `replay` words
/// it: "nothing to VERB: FILE has no edges (...)".
pub(crate) fn no_edges(verb: &str, path: &Path) -> anyhow::Error {
    anyhow::anyhow!(
        "nothing to {verb}: {} has no edges (only comments, blank lines or a header); give a \
         file with at least one edge",
        path.display()
    )
}

/// Reads any format the loader knows into a stream in file order, `-`
/// from standard input, and prints the note when ids were relabelled.
/// Parse errors carry the loader's `file:line:column` location.
pub(crate) fn read_stream(path: &Path, options: &LoadOptions) -> Result<Stream> {
    let path = input_path(path);
    let stream = load_edge_stream(&path, options)?;
    note_relabelled(&path, stream.ids());
    Ok(Stream::from(stream))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delimiters_are_named_or_spelled() {
        assert_eq!(parse_delimiter(","), Ok(Delimiter::Comma));
        assert_eq!(parse_delimiter("tab"), Ok(Delimiter::Tab));
        assert_eq!(parse_delimiter("\t"), Ok(Delimiter::Tab));
        assert!(
            parse_delimiter("|")
                .unwrap_err()
                .contains("not a delimiter")
        );
    }

    #[test]
    fn the_command_line_relabels_where_the_library_keeps() {
        assert_eq!(InputArgs::default().load_options().ids, IdMode::Auto);
        assert_eq!(LoadOptions::default().ids, IdMode::Keep);
    }
}
