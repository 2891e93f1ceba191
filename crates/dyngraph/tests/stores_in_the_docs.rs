//! Issue 36: every store of the registry is in the documentation's
//! tables: the facade's "Choosing a store" and docs/architecture.md's
//! registry table. A store added to the registry fails here until the
//! docs say when to choose it. (The benches and the every-store tests
//! take their stores from the registry: `dyngraph_benches::stores`,
//! `batches_on_every_store.rs`, `petgraph_on_every_store.rs`.)

use dyngraph::stores::StoreKind;

/// The rows of the markdown table under `heading` in `text` (lines of
/// `//! ` doc comments are read as markdown).
fn table_rows(text: &str, heading: &str) -> Vec<String> {
    let lines: Vec<String> = text
        .lines()
        .map(|l| l.trim_start().trim_start_matches("//!").trim().to_string())
        .collect();
    let start = lines
        .iter()
        .position(|l| l.starts_with('#') && l.contains(heading))
        .unwrap_or_else(|| panic!("no heading {heading:?}"));
    lines[start + 1..]
        .iter()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2)
        .cloned()
        .collect()
}

#[test]
fn every_store_of_the_registry_is_in_the_facade_s_table() {
    let text = include_str!("../src/lib.rs");
    let rows = table_rows(text, "Choosing a store");
    for &kind in StoreKind::ALL {
        let name = kind.type_name();
        let cell = |row: &String| {
            row.split('|')
                .nth(1)
                .is_some_and(|first| first.contains(&format!("`{name}`")))
        };
        assert_eq!(
            rows.iter().filter(|row| cell(row)).count(),
            1,
            "{name} ({kind}) is not in one row of the facade's \"Choosing a store\" table"
        );
    }
}

/// The registry table names every store once, and its capability columns
/// are the contract's `CAPABILITIES`.
#[test]
fn every_store_of_the_registry_is_in_the_architecture_table() {
    let text = include_str!("../../../docs/architecture.md");
    let rows = table_rows(text, "The registry");
    assert_eq!(rows.len(), StoreKind::ALL.len(), "{rows:#?}");
    for &kind in StoreKind::ALL {
        let named = format!("`{}`", kind.name());
        let matching: Vec<&String> = rows
            .iter()
            .filter(|row| row.split('|').nth(1).is_some_and(|c| c.trim() == named))
            .collect();
        assert_eq!(
            matching.len(),
            1,
            "{kind}: not in one row of the registry table"
        );
        let cells: Vec<&str> = matching[0].split('|').map(str::trim).collect();
        assert!(
            cells[2].contains(&format!("`{}", kind.type_name())),
            "{kind}: type {}",
            cells[2]
        );
        let yes = |b: bool| if b { "yes" } else { "no" };
        let capabilities = kind.capabilities();
        assert_eq!(
            cells[4..9],
            [
                yes(capabilities.in_edges),
                yes(capabilities.weights),
                yes(capabilities.durable),
                yes(capabilities.distributable),
                yes(capabilities.concurrent_writers),
            ],
            "{kind}: the capability columns"
        );
    }
}

/// Issue 38: the crate documentation's features table is the one list of
/// the facade's features; it names every feature of `Cargo.toml` (and no
/// other), with the default ones marked so.
#[test]
fn the_features_table_lists_every_feature_of_the_manifest() {
    let manifest = include_str!("../Cargo.toml");
    let section = manifest
        .split("[features]")
        .nth(1)
        .and_then(|rest| rest.split("\n[").next())
        .expect("a [features] section");
    // Feature lines start at column 0 with `name = [`; continuation lines
    // of a long list are indented.
    let mut declared: Vec<String> = section
        .lines()
        .filter(|l| !l.starts_with(' ') && !l.starts_with('#'))
        .filter_map(|l| l.split_once(" = ").map(|(name, _)| name.to_string()))
        .filter(|name| name != "default")
        .collect();
    declared.sort();
    let defaults: Vec<String> = section
        .lines()
        .find_map(|l| l.strip_prefix("default = ["))
        .expect("a default feature list")
        .trim_end_matches(']')
        .split(',')
        .map(|f| f.trim().trim_matches('"').to_string())
        .filter(|f| !f.is_empty())
        .collect();
    let rows = table_rows(include_str!("../src/lib.rs"), "# Features");
    let mut documented = Vec::new();
    for row in &rows {
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        let name = cells[1].trim_matches('`').to_string();
        let default = cells[2] == "yes";
        assert_eq!(
            default,
            defaults.contains(&name),
            "feature {name}: the table says default {default}, Cargo.toml's default list {defaults:?}"
        );
        documented.push(name);
    }
    documented.sort();
    assert_eq!(
        documented, declared,
        "the features table and Cargo.toml disagree"
    );
}
