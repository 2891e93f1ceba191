//! TEMPORARY reader until the loader lands (not to be committed).
use crate::stream::Stream;
use anyhow::{Context, Result, bail};
use std::path::Path;

pub(crate) fn read_stream(path: &Path) -> Result<Stream> {
    let text = std::fs::read_to_string(path).with_context(|| format!("{}", path.display()))?;
    let mut s = Stream { timestamps: Some(vec![]), ..Stream::default() };
    for (i, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() { continue; }
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() < 3 { bail!("{}:{}: short line", path.display(), i + 1); }
        s.src.push(f[0].parse()?); s.dst.push(f[1].parse()?);
        s.timestamps.as_mut().unwrap().push(f[2].parse()?);
    }
    Ok(s)
}
