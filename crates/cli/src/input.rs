//! Reading graph files the way every command does: the input options
//! (`--ids`, `--delimiter`, `--header`, `--third-column`), `-` for
//! standard input, one note when ids were relabelled, and one wording for
//! a file with no edges.
//!
//! The command line relabels ids when it must (`--ids auto`, the default
//! here, where the library keeps them and refuses) and says so in one line
//! on stderr: `note: FILE: 1899 string ids relabelled as vertices ...`.

use anyhow::Result;
use clap::Args;
use dyngraph::core::IdMap;
use dyngraph::loader::{Delimiter, IdMode, LoadOptions, ThirdColumn};
use std::path::{Path, PathBuf};

/// How a command reads its input file: flatten into a command's arguments
/// (`#[command(flatten)] input: InputArgs`), then
/// [`InputArgs::load_options`].
#[derive(Args, Clone, Debug)]
pub(crate) struct InputArgs {
    /// How vertex ids are read. `auto`: numbers are vertex ids when dense;
    /// sparse, 64-bit and named ids are relabelled, with a note (results
    /// name the original ids). `keep`: numbers are vertex ids, a file
    /// whose numbers cannot be is refused. `dense`: numbers are vertex ids
    /// however sparse. `integers`, `strings`: always relabel.
    #[arg(long, value_enum, default_value_t = IdMode::Auto)]
    pub(crate) ids: IdMode,
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
    pub(crate) third_column: Option<ThirdColumn>,
}

/// The command line's defaults, as clap fills them in.
impl Default for InputArgs {
    fn default() -> Self {
        Self {
            ids: IdMode::Auto,
            delimiter: None,
            header: false,
            third_column: None,
        }
    }
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
        let mut options = LoadOptions::default().ids(self.ids).header(self.header);
        if let Some(delimiter) = self.delimiter {
            options = options.delimiter(delimiter);
        }
        if let Some(third) = self.third_column {
            options = options.third_column(third);
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
