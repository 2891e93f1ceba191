//! How the fields of a line are separated: blanks (any run of spaces and
//! tabs, the SNAP, `.el`, `.wel` and Matrix Market way) or one delimiter
//! character (CSV and TSV).

use crate::parse::{is_skippable, split_line};

/// What separates the fields of an edge-list line.
///
/// | delimiter | fields | blanks around a field |
/// |---|---|---|
/// | [`Delimiter::Blanks`] | any run of spaces and tabs | are the separator |
/// | [`Delimiter::Comma`] `,` / [`Delimiter::Semicolon`] `;` / [`Delimiter::Tab`] | exactly one delimiter between two fields | spaces (and tabs, except for `Tab`) are trimmed |
///
/// With a delimiter a field may be quoted (`"Smith, Ann",bob`): the
/// quotes are dropped and a delimiter inside them is part of the field (a
/// quote inside a quoted field is not supported). A delimiter at the very
/// end of a line adds no field. [`crate::LoadOptions::delimiter`] chooses
/// one; by default a `.tsv` file takes tabs, a `.csv` file
/// ([`crate::Format::Csv`]) the delimiter its first data line holds most
/// of, and every other format reads blanks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Delimiter {
    /// Runs of spaces and tabs.
    Blanks,
    /// `,`
    Comma,
    /// `;`
    Semicolon,
    /// A tab.
    Tab,
}

impl Delimiter {
    /// The delimiter character, `None` for blanks.
    pub fn char(self) -> Option<char> {
        match self {
            Delimiter::Blanks => None,
            Delimiter::Comma => Some(','),
            Delimiter::Semicolon => Some(';'),
            Delimiter::Tab => Some('\t'),
        }
    }

    fn byte(self) -> Option<u8> {
        self.char().map(|c| c as u8)
    }

    /// Whether `byte` is trimmed around a delimited field.
    #[inline]
    fn is_padding(self, byte: u8) -> bool {
        byte == b' ' || (byte == b'\t' && self != Delimiter::Tab)
    }

    /// The delimiter of a delimited file: a tab for a `.tsv` name, else
    /// the one its first data line holds most of (`,` before `;` before a
    /// tab on a tie), or blanks when it holds none.
    pub(crate) fn detect(path: Option<&std::path::Path>, text: &[u8]) -> Delimiter {
        let name = path.map(|p| p.to_string_lossy().to_ascii_lowercase());
        if let Some(name) = name {
            let name = name.strip_suffix(".gz").unwrap_or(&name);
            if name.ends_with(".tsv") {
                return Delimiter::Tab;
            }
        }
        let Some(line) = first_data_line(text) else {
            return Delimiter::Comma;
        };
        let count = |byte: u8| line.iter().filter(|&&b| b == byte).count();
        [Delimiter::Comma, Delimiter::Semicolon, Delimiter::Tab]
            .into_iter()
            .map(|d| (count(d.byte().unwrap_or_default()), d))
            .filter(|&(n, _)| n > 0)
            .min_by_key(|&(n, _)| std::cmp::Reverse(n))
            .map_or(Delimiter::Blanks, |(_, d)| d)
    }
}

/// The first line of `text` that is neither blank nor a comment.
fn first_data_line(text: &[u8]) -> Option<&[u8]> {
    let mut rest = text;
    while !rest.is_empty() {
        let (line, tail, _) = split_line(rest);
        if !is_skippable(line) {
            return Some(line);
        }
        rest = tail;
    }
    None
}

/// The next field of `line` at or after `*pos`, with its byte offset, and
/// `*pos` moved past it; `None` when the line has no more fields.
///
/// For a delimiter, `*pos` is the start of a field (just after the
/// previous delimiter), and `line.len() + 1` once the last field was read.
#[inline]
pub(crate) fn next_field<'a>(
    line: &'a [u8],
    pos: &mut usize,
    delimiter: Delimiter,
) -> Option<(usize, &'a [u8])> {
    let Some(byte) = delimiter.byte() else {
        return crate::parse::next_token(line, pos);
    };
    if *pos > line.len() {
        return None;
    }
    let mut start = *pos;
    while start < line.len() && delimiter.is_padding(line[start]) {
        start += 1;
    }
    // Nothing but padding up to the end: no field (a delimiter ending the
    // line adds none).
    if start == line.len() {
        *pos = line.len() + 1;
        return None;
    }
    if line.get(start) == Some(&b'"')
        && let Some(length) = line[start + 1..].iter().position(|&b| b == b'"')
    {
        let field = &line[start + 1..start + 1 + length];
        let mut after = start + 2 + length;
        while after < line.len() && delimiter.is_padding(line[after]) {
            after += 1;
        }
        if after == line.len() || line[after] == byte {
            *pos = after + 1;
            return Some((start + 1, field));
        }
    }
    let end = line[start..]
        .iter()
        .position(|&b| b == byte)
        .map_or(line.len(), |i| start + i);
    let mut trimmed = end;
    while trimmed > start && delimiter.is_padding(line[trimmed - 1]) {
        trimmed -= 1;
    }
    *pos = end + 1;
    Some((start, &line[start..trimmed]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(line: &str, delimiter: Delimiter) -> Vec<(usize, String)> {
        let mut pos = 0;
        let mut out = Vec::new();
        while let Some((at, field)) = next_field(line.as_bytes(), &mut pos, delimiter) {
            out.push((at, String::from_utf8(field.to_vec()).unwrap()));
        }
        out
    }

    #[test]
    fn delimited_fields_are_trimmed_quoted_and_may_be_empty() {
        let strs = |line, d| -> Vec<String> { fields(line, d).into_iter().map(|f| f.1).collect() };
        assert_eq!(strs("1,2,0.5", Delimiter::Comma), ["1", "2", "0.5"]);
        assert_eq!(strs(" 1 , 2 ,", Delimiter::Comma), ["1", "2"]);
        assert_eq!(strs("1,,2", Delimiter::Comma), ["1", "", "2"]);
        assert_eq!(
            strs("\"Smith, Ann\",bob", Delimiter::Comma),
            ["Smith, Ann", "bob"]
        );
        assert_eq!(
            strs("Ann Lee\tBob Ray", Delimiter::Tab),
            ["Ann Lee", "Bob Ray"]
        );
        assert_eq!(strs("a;b", Delimiter::Semicolon), ["a", "b"]);
        assert_eq!(strs("", Delimiter::Comma), [""; 0]);
        assert_eq!(strs("  a  b ", Delimiter::Blanks), ["a", "b"]);
        // Offsets are where each field starts.
        assert_eq!(fields("ab, cd", Delimiter::Comma)[1].0, 4);
        assert_eq!(fields("\"x\",y", Delimiter::Comma)[0].0, 1);
    }

    #[test]
    fn the_delimiter_is_the_one_the_first_data_line_holds_most_of() {
        assert_eq!(
            Delimiter::detect(None, b"# a,b\n1;2;3\n"),
            Delimiter::Semicolon
        );
        assert_eq!(Delimiter::detect(None, b"a\tb,c\td\n"), Delimiter::Tab);
        assert_eq!(Delimiter::detect(None, b"1,2\n"), Delimiter::Comma);
        assert_eq!(Delimiter::detect(None, b"1 2\n"), Delimiter::Blanks);
        let tsv = std::path::Path::new("names.TSV.gz");
        assert_eq!(Delimiter::detect(Some(tsv), b"a, b\tc\n"), Delimiter::Tab);
    }
}
