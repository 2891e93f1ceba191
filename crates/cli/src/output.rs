//! Output files: checked creatable before any work starts, then written
//! whole or not at all.
//!
//! Every command checks each output path it was given with [`check`]
//! before it reads or computes anything, so `--json /nonexistent/dir/x.json`
//! fails at once instead of after a long replay. Every file is then
//! written through [`write()`] (or the loader's writers, which do the same):
//! to a temporary file in the destination's directory, flushed, synced and
//! renamed over the destination, so a crash, a kill or a full disk never
//! leaves a truncated file under the final name, and the previous file
//! survives a failed write.

use anyhow::Result;
use dyngraph::loader::AtomicFile;
use std::io::Write;
use std::path::Path;

/// `-`, which the commands that allow it take as stdout.
pub(crate) fn is_stdout(path: &Path) -> bool {
    path == Path::new("-")
}

/// Checks that `path` can be created: its directory exists and takes new
/// files (a temporary file is created there and removed), and `path` is
/// not a directory. `-` (stdout) passes.
pub(crate) fn check(path: &Path) -> Result<()> {
    if is_stdout(path) {
        return Ok(());
    }
    AtomicFile::check(path)?;
    Ok(())
}

/// [`check`] on every output given, by flag, and that no two name the same
/// file (the second write would replace the first: `--json out --csv out`
/// kept only the CSV).
pub(crate) fn check_all<'a>(
    outputs: impl IntoIterator<Item = (&'static str, Option<&'a Path>)>,
) -> Result<()> {
    let mut seen: Vec<(&'static str, &Path, std::path::PathBuf)> = Vec::new();
    for (flag, path) in outputs {
        let Some(path) = path else { continue };
        check(path)?;
        if is_stdout(path) {
            continue;
        }
        let key = file_key(path);
        if let Some((other, other_path, _)) = seen.iter().find(|(_, _, k)| *k == key) {
            anyhow::bail!(
                "{other} {} and {flag} {} are the same file: the second would replace the \
                 first; give each output its own file",
                other_path.display(),
                path.display()
            );
        }
        seen.push((flag, path, key));
    }
    Ok(())
}

/// The file `path` names, however it is spelled: its directory resolved
/// (links, `..`), then its name.
fn file_key(path: &Path) -> std::path::PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    match (absolute.parent(), absolute.file_name()) {
        (Some(dir), Some(name)) => std::fs::canonicalize(dir)
            .unwrap_or_else(|_| dir.to_path_buf())
            .join(name),
        _ => absolute,
    }
}

/// Writes `path` whole or not at all: `fill` writes into a temporary file
/// beside it, which is flushed, synced and renamed over `path` only when
/// `fill` succeeded. On an error `path` holds what it held before.
pub(crate) fn write(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<()> {
    let mut file = AtomicFile::create(path)?;
    fill(&mut file).map_err(|source| dyngraph::core::Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    file.commit()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_fill_keeps_the_previous_file() {
        let dir = std::env::temp_dir().join(format!("dyngraph-output-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("report.json");
        std::fs::write(&path, "previous").unwrap();
        let error = write(&path, |out| {
            out.write_all(b"half")?;
            Err(std::io::Error::other("disk on fire"))
        })
        .unwrap_err();
        assert_eq!(
            format!("{error:#}"),
            format!("{}: disk on fire", path.display())
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "previous");
        write(&path, |out| out.write_all(b"next")).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "next");
        let names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["report.json"]);
    }

    #[test]
    fn check_refuses_a_missing_directory_and_passes_stdout() {
        assert!(check(Path::new("-")).is_ok());
        let error = check(Path::new("/nonexistent/dir/x.json")).unwrap_err();
        assert!(
            format!("{error:#}").contains("the directory /nonexistent/dir does not exist"),
            "{error:#}"
        );
    }
}
