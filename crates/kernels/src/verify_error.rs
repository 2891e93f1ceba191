//! The error a verifier returns.

use dyngraph_core::VertexId;
use std::fmt;

/// Why a kernel's result failed its verifier: the kernel, and the first
/// discrepancy found, in words (with the vertex when there is one).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyError {
    /// The kernel whose result was checked (`"bfs"`, `"pagerank"`, ...).
    pub kernel: &'static str,
    /// The vertex where the first discrepancy was found, if any.
    pub vertex: Option<VertexId>,
    /// What was wrong.
    pub message: String,
}

impl VerifyError {
    pub(crate) fn new(kernel: &'static str, message: impl Into<String>) -> Self {
        Self {
            kernel,
            vertex: None,
            message: message.into(),
        }
    }

    pub(crate) fn at(kernel: &'static str, vertex: VertexId, message: impl Into<String>) -> Self {
        Self {
            kernel,
            vertex: Some(vertex),
            message: message.into(),
        }
    }
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.vertex {
            Some(v) => write!(
                f,
                "{} verification failed at vertex {v}: {}",
                self.kernel, self.message
            ),
            None => write!(f, "{} verification failed: {}", self.kernel, self.message),
        }
    }
}

impl std::error::Error for VerifyError {}
