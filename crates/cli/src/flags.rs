//! Every numeric flag's parser, in one place: each says what the flag
//! takes, and a negative value (`--base -1`) reaches it instead of being
//! taken for another flag (every numeric argument is declared with
//! `allow_hyphen_values`), so the message names the flag.

use std::time::Duration;

/// The most workers one process runs: timely starts a thread per worker,
/// and `--workers 100000` took 10 GB in 40 s before any work.
pub(crate) const MAX_WORKERS_PER_CORE: usize = 4;

fn number_error(text: &str, what: &str) -> String {
    if text.trim_start().starts_with('-') {
        format!("'{text}' is negative: {what}")
    } else {
        format!("'{text}' is not {what}")
    }
}

/// `--base`: a percentage from 0 to 100.
pub(crate) fn percent(text: &str) -> Result<f64, String> {
    if text.trim_start().starts_with('-') {
        return Err(number_error(text, "a percentage between 0 and 100"));
    }
    let value: f64 = text
        .parse()
        .map_err(|_| number_error(text, "a percentage between 0 and 100"))?;
    if !(0.0..=100.0).contains(&value) {
        return Err(format!("{value} is not a percentage between 0 and 100"));
    }
    Ok(value)
}

/// `--batch`, `--every`, `--trials`, `--durable-memory`: a whole number
/// from 1.
pub(crate) fn positive(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(0) => Err(format!(
            "'{text}' is not a positive whole number (1 or more)"
        )),
        Ok(value) => Ok(value),
        Err(_) => Err(number_error(text, "a positive whole number (1 or more)")),
    }
}

/// `--seed`: any whole number from 0 to 2^64 - 1.
pub(crate) fn seed(text: &str) -> Result<u64, String> {
    text.parse().map_err(|_| {
        number_error(
            text,
            "a seed: a whole number from 0 to 18446744073709551615",
        )
    })
}

/// `--window`: a number of timestamp units, or of edges (`5000edges`).
pub(crate) fn window(text: &str) -> Result<dyngraph::replay::Window, String> {
    if text.trim_start().starts_with('-') {
        return Err(number_error(
            text,
            "a window is a number of timestamp units (e.g. 86400) or of edges (e.g. 5000edges), from 0",
        ));
    }
    text.parse()
}

fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// `--threads N`, the same for every command: at least 1, and at most 4×
/// the machine's cores (ten thousand threads on two cores spent a minute
/// starting up before any work).
pub(crate) fn threads(text: &str) -> Result<usize, String> {
    let threads = positive(text)?;
    let cores = cores();
    if threads > 4 * cores {
        return Err(format!(
            "{threads} threads on {cores} cores: at most {} (4× the cores); omit --threads for one per core",
            4 * cores
        ));
    }
    Ok(threads)
}

/// `--workers W`: timely workers per process, at least 1 and at most
/// [`MAX_WORKERS_PER_CORE`] × the cores, as for `--threads`.
pub(crate) fn workers(text: &str) -> Result<usize, String> {
    let workers = positive(text)?;
    let cores = cores();
    let most = MAX_WORKERS_PER_CORE * cores;
    if workers > most {
        return Err(format!(
            "{workers} workers on {cores} cores: at most {most} per process ({MAX_WORKERS_PER_CORE}× \
             the cores); for more workers, run more processes with --hostfile"
        ));
    }
    Ok(workers)
}

/// `--pagerank-bound EPS`: a positive, finite L1 bound.
pub(crate) fn bound(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(bound) if bound.is_finite() && bound > 0.0 => Ok(bound),
        _ => Err(number_error(text, "a positive L1 bound such as 1e-6")),
    }
}

/// `gen --scale`, `gen --degree`: a whole number from 1 (the generator
/// checks the upper bounds against what it can draw).
pub(crate) fn positive_u32(text: &str) -> Result<u32, String> {
    let value = positive(text)?;
    u32::try_from(value).map_err(|_| format!("{value} is too large: at most {}", u32::MAX))
}

/// `--process`: an index from 0.
pub(crate) fn index(text: &str) -> Result<usize, String> {
    text.parse()
        .map_err(|_| number_error(text, "an index: a whole number from 0"))
}

/// `--stall-timeout S`: a positive number of seconds.
pub(crate) fn seconds(text: &str) -> Result<Duration, String> {
    match text.parse::<f64>() {
        Ok(seconds) if seconds.is_finite() && seconds > 0.0 => Ok(Duration::from_secs_f64(seconds)),
        _ => Err(number_error(text, "a positive number of seconds")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negative_values_are_called_negative() {
        for parse in [
            |t: &str| percent(t).map(|_| ()),
            |t: &str| positive(t).map(|_| ()),
            |t: &str| seed(t).map(|_| ()),
            |t: &str| window(t).map(|_| ()),
            |t: &str| threads(t).map(|_| ()),
            |t: &str| workers(t).map(|_| ()),
            |t: &str| seconds(t).map(|_| ()),
            |t: &str| bound(t).map(|_| ()),
            |t: &str| positive_u32(t).map(|_| ()),
            |t: &str| index(t).map(|_| ()),
        ] {
            let error = parse("-1").unwrap_err();
            assert!(error.contains("negative"), "{error}");
        }
        assert_eq!(positive("7"), Ok(7));
        assert!(workers("100000").unwrap_err().contains("at most"));
    }
}
