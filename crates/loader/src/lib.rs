//! `dyngraph-loader`: not implemented yet. Its issue in the tracker describes
//! what it will hold; until that lands this crate is intentionally empty.
#![deny(missing_docs)]
