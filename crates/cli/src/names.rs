//! How the command line names vertices: by their original id or key when
//! the input was relabelled (or a kept store keeps keys), else by vertex
//! id; the same both ways, for what is printed and for the flags that
//! name a vertex (`--source`).

use anyhow::{Result, bail};
use dyngraph::core::{IdKind, IdMap, OriginalId, VertexId};

/// The names of a graph's vertices.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Names<'a> {
    ids: Option<&'a IdMap>,
    vertices: usize,
}

impl<'a> Names<'a> {
    /// Names for a graph of `vertices` vertices, by `ids` when it has them.
    pub(crate) fn new(ids: Option<&'a IdMap>, vertices: usize) -> Self {
        Self { ids, vertices }
    }

    /// How vertex `v` is shown.
    pub(crate) fn name(&self, v: VertexId) -> String {
        match self.ids {
            Some(ids) if (v as usize) < ids.len() => ids.original(v).to_string(),
            _ => v.to_string(),
        }
    }

    /// How vertex `v` is written in JSON: a number for an integer id or
    /// key, a string for a string key.
    pub(crate) fn json(&self, v: VertexId) -> serde_json::Value {
        match self.ids {
            Some(ids) if (v as usize) < ids.len() => match ids.original(v) {
                OriginalId::Integer(key) => serde_json::Value::from(key),
                text @ OriginalId::String(_) => serde_json::Value::from(text.to_string()),
            },
            _ => serde_json::Value::from(v),
        }
    }

    /// The vertex `text` names (a flag's value): its key when the graph
    /// has keys, else its id.
    ///
    /// # Errors
    /// A key the graph does not have, an id past its vertices, or text
    /// that is neither, each saying which and what the graph takes.
    pub(crate) fn vertex(&self, flag: &str, text: &str) -> Result<VertexId> {
        match self.ids {
            Some(ids) => {
                let found = match ids.kind() {
                    IdKind::Integers => match text.parse::<u64>() {
                        Ok(key) => ids.vertex_of_integer(key),
                        Err(_) => bail!(
                            "{flag} {text:?}: this graph's vertices are named by integer ids \
                             (its input was relabelled), and {text:?} is not one"
                        ),
                    },
                    IdKind::Strings => ids.vertex_of_str(text),
                };
                match found {
                    Some(v) if (v as usize) < self.vertices => Ok(v),
                    _ => bail!(
                        "{flag} {text}: no vertex of this graph has that {} (it names its {} \
                         vertices by the input's original ids)",
                        match ids.kind() {
                            IdKind::Integers => "id",
                            IdKind::Strings => "key",
                        },
                        self.vertices
                    ),
                }
            }
            None => match text.parse::<VertexId>() {
                Ok(v) if (v as usize) < self.vertices => Ok(v),
                Ok(v) => bail!(
                    "{flag} {v} is not a vertex of this graph (it has {} vertices, 0..{}); \
                     pick an id below that",
                    self.vertices,
                    self.vertices.saturating_sub(1)
                ),
                Err(_) => bail!(
                    "{flag} {text:?} is not a vertex id (a whole number from 0; this graph's \
                     ids were not relabelled, so it has no keys)"
                ),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_name_vertices_both_ways() {
        let ids = IdMap::from_strings(["alice", "bob"]).unwrap();
        let names = Names::new(Some(&ids), 2);
        assert_eq!(names.vertex("--source", "bob").unwrap(), 1);
        assert_eq!(names.name(1), "bob");
        let error = names.vertex("--source", "carol").unwrap_err().to_string();
        assert!(error.contains("carol") && error.contains("key"), "{error}");
        let ids = IdMap::from_integers(vec![5_000_000, 7]).unwrap();
        let names = Names::new(Some(&ids), 2);
        assert_eq!(names.vertex("--source", "7").unwrap(), 1);
        assert!(names.vertex("--source", "1").is_err());
        let plain = Names::new(None, 10);
        assert_eq!(plain.vertex("--source", "9").unwrap(), 9);
        let error = plain.vertex("--source", "99999").unwrap_err().to_string();
        assert!(error.contains("10 vertices"), "{error}");
        assert!(plain.vertex("--source", "-1").is_err());
    }
}
