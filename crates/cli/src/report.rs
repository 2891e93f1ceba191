//! What `replay` writes besides the library's table: JSON, CSV and an SVG
//! plot of the report.

use anyhow::{Context, Result};
use dyngraph::replay::Report;
use serde::Serialize;
use std::path::Path;

pub(crate) fn write_json(report: &impl Serialize, path: &Path) -> Result<()> {
    let text = serde_json::to_string_pretty(report)?;
    if crate::output::is_stdout(path) {
        println!("{text}");
        return Ok(());
    }
    crate::output::write(path, |out| writeln!(out, "{text}"))
}

/// The report's CSV rows ([`Report::csv_rows`]), formatted in memory and
/// written whole.
pub(crate) fn write_csv(report: &Report, path: &Path) -> Result<()> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    for row in report.csv_rows() {
        writer.serialize(row)?;
    }
    let bytes = writer.into_inner().context("cannot format the CSV")?;
    crate::output::write(path, |out| out.write_all(&bytes))
}

/// Throughput over the replay, one line per store: the batches are grouped
/// into at most 200 buckets and each point is the bucket's updates per
/// second.
pub(crate) fn write_plot(report: &Report, path: &Path) -> Result<()> {
    use plotters::prelude::*;
    const BUCKETS: usize = 200;
    let series: Vec<(String, Vec<(f64, f64)>)> = report
        .stores
        .iter()
        .map(|store| {
            let per_bucket = store.records.len().div_ceil(BUCKETS).max(1);
            let total = store.records.len().max(1) as f64;
            let points = store
                .records
                .chunks(per_bucket)
                .enumerate()
                .map(|(i, chunk)| {
                    let updates: u64 = chunk
                        .iter()
                        .map(|r| r.edges_inserted + r.edges_deleted)
                        .sum();
                    let seconds: f64 = chunk.iter().map(|r| r.seconds).sum();
                    let progress =
                        100.0 * ((i + 1) * per_bucket).min(store.records.len()) as f64 / total;
                    (
                        progress,
                        if seconds > 0.0 {
                            updates as f64 / seconds / 1e6
                        } else {
                            0.0
                        },
                    )
                })
                .collect();
            (store.store.clone(), points)
        })
        .collect();
    let max_meps = series
        .iter()
        .flat_map(|(_, p)| p.iter().map(|&(_, y)| y))
        .fold(0.0, f64::max);

    // Drawn in memory, then written whole.
    let mut svg = String::new();
    let root = SVGBackend::with_string(&mut svg, (900, 500)).into_drawing_area();
    let draw = || -> Result<(), Box<dyn std::error::Error>> {
        root.fill(&WHITE)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(
                format!("replay of {}", report.input.path.display()),
                ("sans-serif", 18),
            )
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d(0.0..100.0, 0.0..(max_meps * 1.1).max(1e-6))?;
        chart
            .configure_mesh()
            .x_desc("timed batches replayed (%)")
            .y_desc("million edge updates / s")
            .draw()?;
        for (index, (name, points)) in series.iter().enumerate() {
            let color = Palette99::pick(index).to_rgba();
            chart
                .draw_series(LineSeries::new(
                    points.iter().copied(),
                    color.stroke_width(2),
                ))?
                .label(name.as_str())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
                });
        }
        chart
            .configure_series_labels()
            .border_style(BLACK)
            .background_style(WHITE)
            .draw()?;
        root.present()?;
        Ok(())
    };
    draw().map_err(|error| anyhow::anyhow!("cannot draw {}: {error}", path.display()))?;
    drop(root);
    crate::output::write(path, |out| out.write_all(svg.as_bytes()))
}
