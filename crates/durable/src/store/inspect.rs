//! What a directory holds before a store is created or opened in it, so
//! that nothing the store did not write is written over, and a store
//! that lost its superblock is called damaged, never new.

use super::DurableVcsr;
use crate::files::read_file;
use crate::format::wal::WAL_MAGIC;
use crate::format::{
    EDGE_LOG_FILE, EDGES_FILE, EDGES_MAGIC, IN_EDGE_LOG_FILE, IN_EDGES_FILE, LOCK_FILE,
    READERS_FILE, STATE_FILE, SUPERBLOCK_FILE, SUPERBLOCK_MAGIC, Superblock, TEMP_SUFFIX, WAL_FILE,
    io,
};
use crate::keys::KEYS_FILE;
use crate::wal::Wal;
use dyngraph_core::Result;
use std::path::Path;

/// What a directory holds, as [`DurableVcsr::inspect_dir`] finds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StoreDir {
    /// No such path, or an empty directory: a store may be created there.
    Vacant,
    /// A store: its superblock reads back. `keyed` when it keeps a key
    /// map ([`KEYS_FILE`]) beside its edges.
    Store {
        /// Whether the store keeps its vertices' keys.
        keyed: bool,
        /// Whether the store keeps in-edges (its layout: an append must
        /// agree).
        in_edges: bool,
    },
    /// A store's files without a superblock that reads back. `reason`
    /// says which case it is and how to go on, in a user's words.
    Damaged {
        /// What is wrong and what to do.
        reason: String,
    },
    /// Files that no store of this crate writes: somebody else's
    /// directory. The names found (at most ten).
    Foreign {
        /// Names of entries that are not a store's.
        entries: Vec<String>,
    },
    /// A file (or anything else) where a directory should be.
    NotADirectory,
}

/// Whether `name` is one that a store writes in its directory.
fn is_store_file(name: &str) -> bool {
    let name = name.strip_suffix(TEMP_SUFFIX).unwrap_or(name);
    let fixed = [
        SUPERBLOCK_FILE,
        EDGES_FILE,
        EDGE_LOG_FILE,
        IN_EDGES_FILE,
        IN_EDGE_LOG_FILE,
        WAL_FILE,
        STATE_FILE,
        LOCK_FILE,
        READERS_FILE,
        KEYS_FILE,
    ];
    let numbered = |prefix: &str, suffix: &str| {
        name.strip_prefix(prefix)
            .and_then(|rest| rest.strip_suffix(suffix))
            .is_some_and(|digits| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
    };
    fixed.contains(&name)
        || numbered("undo-", ".log")
        || numbered("edges-", ".sum")
        || numbered("in-edges-", ".sum")
        || numbered("sidecar-", ".bin")
}

/// Whether a file named as a store's is one: the files that carry a magic
/// must start with it (a user's own `wal.log` is not the store's). Empty
/// ones count (a creation on a full disk leaves them).
fn has_store_magic(dir: &Path, name: &str) -> bool {
    let magic: &[u8] = match name {
        WAL_FILE => WAL_MAGIC,
        EDGES_FILE | IN_EDGES_FILE => EDGES_MAGIC,
        SUPERBLOCK_FILE => SUPERBLOCK_MAGIC,
        _ => return true,
    };
    let mut head = [0u8; 8];
    let Ok(mut file) = std::fs::File::open(dir.join(name)) else {
        return false;
    };
    match std::io::Read::read(&mut file, &mut head) {
        Ok(0) => true,
        Ok(n) => head[..n] == magic[..n],
        Err(_) => false,
    }
}

impl DurableVcsr {
    /// What `dir` holds: nothing (a store may be created), a store, a
    /// store's files without a readable superblock (damaged, or a creation
    /// that never finished), or files that are not a store's. Creating a
    /// store refuses anything but [`StoreDir::Vacant`]; command lines use
    /// this to say what they found instead of writing over it.
    ///
    /// # Errors
    /// An I/O error naming `dir` when it cannot be listed.
    pub fn inspect_dir(dir: impl AsRef<Path>) -> Result<StoreDir> {
        let dir = dir.as_ref();
        let Ok(metadata) = std::fs::metadata(dir) else {
            return Ok(StoreDir::Vacant);
        };
        if !metadata.is_dir() {
            return Ok(StoreDir::NotADirectory);
        }
        let mut names = Vec::new();
        for entry in std::fs::read_dir(dir).map_err(|e| io(dir, e))? {
            let entry = entry.map_err(|e| io(dir, e))?;
            names.push(entry.file_name().to_string_lossy().into_owned());
        }
        names.sort();
        if names.is_empty() {
            return Ok(StoreDir::Vacant);
        }
        // A damaged superblock is the store's own (its magic flipped, say),
        // not a stranger's file.
        let foreign: Vec<String> = names
            .iter()
            .filter(|name| {
                *name != SUPERBLOCK_FILE && (!is_store_file(name) || !has_store_magic(dir, name))
            })
            .take(10)
            .cloned()
            .collect();
        let sb_path = dir.join(SUPERBLOCK_FILE);
        let superblock = names
            .iter()
            .any(|n| n == SUPERBLOCK_FILE)
            .then(|| read_file(&sb_path).and_then(|bytes| Superblock::decode(&bytes, &sb_path)));
        match superblock {
            Some(Ok(superblock)) => Ok(StoreDir::Store {
                keyed: names.iter().any(|n| n == KEYS_FILE),
                in_edges: superblock.in_edges,
            }),
            _ if !foreign.is_empty() => Ok(StoreDir::Foreign { entries: foreign }),
            Some(Err(error)) => Ok(StoreDir::Damaged {
                reason: format!(
                    "its superblock does not read back ({error}): the store is damaged; \
                     `dyngraph recover --check` says more, and a superblock cannot be rebuilt, \
                     so restore the directory from a backup or remove it"
                ),
            }),
            None => Ok(StoreDir::Damaged {
                reason: Self::without_superblock(dir, &names),
            }),
        }
    }

    /// Why a directory of store files has no superblock, in the words a
    /// user needs: a store that was complete (it was closed once, its log
    /// holds updates, or a checkpoint took updates into its arrays) lost
    /// it; otherwise its creation never finished and nothing in it was
    /// acknowledged.
    ///
    /// The log's length is no evidence either way: a checkpoint cuts a
    /// long log back to its header, and zeros are written ahead of a new
    /// one. Its header's base counts the updates a checkpoint took into
    /// the arrays (creation writes zero), and its groups the updates since.
    fn without_superblock(dir: &Path, names: &[String]) -> String {
        let closed_once = names.iter().any(|n| n == STATE_FILE);
        let logged = Wal::read_header(dir).is_some_and(|header| {
            header.base.lsn > 0
                || Wal::read(dir, header.stride as usize)
                    .is_ok_and(|contents| !contents.groups.is_empty())
        });
        if closed_once || logged {
            format!(
                "it holds a store's files ({}) but no superblock: the store was complete \
                 ({}) and its superblock is lost, so it is damaged; a superblock cannot be \
                 rebuilt: restore the directory from a backup, or remove it to start again",
                names.join(", "),
                if closed_once {
                    "it was closed cleanly once"
                } else {
                    "it took updates"
                }
            )
        } else {
            format!(
                "it holds a store's files ({}) but no superblock: the store's creation never \
                 finished (killed, or the disk filled), so nothing in it was acknowledged; \
                 remove the directory and create the store again",
                names.join(", ")
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_file_names_are_told_from_others() {
        for name in [
            "superblock",
            "edges.dat",
            "edges-12.sum",
            "in-edges-3.sum",
            "undo-0.log",
            "sidecar-77.bin",
            "wal.log",
            "keys.dgid",
            "keys.dgid.tmp",
            "superblock.tmp",
            "LOCK",
        ] {
            assert!(is_store_file(name), "{name}");
        }
        for name in [
            "notes.txt",
            "edges-.sum",
            "undo-x.log",
            "wal.log.bak",
            "data",
        ] {
            assert!(!is_store_file(name), "{name}");
        }
    }
}
