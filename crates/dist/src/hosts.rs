//! The host file, read and checked whole by every process before any
//! connection: a bad line fails every process at once, naming the line,
//! instead of failing on the process whose line it is while the others wait
//! for it to connect.

use dyngraph_core::{Error, Location, ParseErrorKind, Result};
use std::net::{SocketAddr, ToSocketAddrs};
use std::path::{Path, PathBuf};

/// One process of the cluster: its line and the address it listens on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Host {
    /// The line as written (trimmed).
    pub(crate) text: String,
    /// 1-based line of the host file, or 1-based position in an address
    /// list.
    pub(crate) line: u64,
    /// The address, resolved once.
    pub(crate) address: SocketAddr,
}

/// Where the addresses came from, for messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum HostSource {
    /// A host file.
    File(PathBuf),
    /// A list handed to [`crate::Cluster::from_addresses`].
    List,
}

impl HostSource {
    /// `hosts:3` or `address 3`.
    pub(crate) fn name_line(&self, line: u64) -> String {
        match self {
            HostSource::File(path) => format!("{}:{line}", path.display()),
            HostSource::List => format!("address {line}"),
        }
    }

    fn error(&self, line: u64, column: u64, message: String) -> Error {
        match self {
            HostSource::File(path) => Error::Parse {
                location: Location::new(Some(path.clone()), line, column),
                kind: ParseErrorKind::Other(message),
            },
            HostSource::List => Error::InvalidArgument(format!("address {line}: {message}")),
        }
    }
}

/// Reads a host file: one `host:port` per line, blank lines and `#`
/// comments skipped.
pub(crate) fn read_hostfile(path: &Path) -> Result<Vec<Host>> {
    let text = std::fs::read_to_string(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let lines = text
        .lines()
        .enumerate()
        .map(|(i, line)| (i as u64 + 1, line))
        .filter(|(_, line)| {
            let line = line.trim();
            !line.is_empty() && !line.starts_with('#')
        });
    let hosts = parse_hosts(lines, &HostSource::File(path.to_path_buf()))?;
    if hosts.is_empty() {
        return Err(Error::Parse {
            location: Location::new(Some(path.to_path_buf()), 1, 1),
            kind: ParseErrorKind::Other(
                "the host file lists no address (one `host:port` per process)".into(),
            ),
        });
    }
    Ok(hosts)
}

/// Checks every line: an address with a port in 1..=65535 that resolves,
/// one per line, no address twice.
pub(crate) fn parse_hosts<'a>(
    lines: impl IntoIterator<Item = (u64, &'a str)>,
    source: &HostSource,
) -> Result<Vec<Host>> {
    let mut hosts: Vec<Host> = Vec::new();
    for (line, raw) in lines {
        let indent = (raw.len() - raw.trim_start().len()) as u64;
        let text = raw.trim();
        let column = indent + 1;
        if let Some(space) = text.find(char::is_whitespace) {
            return Err(source.error(
                line,
                column + space as u64,
                format!(
                    "one `host:port` per line, found {text:?} (each process of the cluster has \
                     its own line)"
                ),
            ));
        }
        let Some((host, port)) = text.rsplit_once(':') else {
            return Err(source.error(
                line,
                column,
                format!("expected `host:port` (for example 127.0.0.1:7101), found {text:?}"),
            ));
        };
        let port_column = column + host.len() as u64 + 1;
        let port = match port.parse::<u64>() {
            Ok(port) if (1..=65535).contains(&port) => port as u16,
            Ok(port) => {
                return Err(source.error(
                    line,
                    port_column,
                    format!("port {port} in {text:?} is not in 1..=65535"),
                ));
            }
            Err(_) => {
                return Err(source.error(
                    line,
                    port_column,
                    format!("port {port:?} in {text:?} is not a number in 1..=65535"),
                ));
            }
        };
        let bare = host.trim_start_matches('[').trim_end_matches(']');
        if bare.is_empty() {
            return Err(source.error(
                line,
                column,
                format!("{text:?} names no host before the port"),
            ));
        }
        let address = (bare, port)
            .to_socket_addrs()
            .map_err(|e| e.to_string())
            .and_then(|mut found| {
                found
                    .next()
                    .ok_or_else(|| "it resolves to no address".to_string())
            })
            .map_err(|reason| {
                source.error(
                    line,
                    column,
                    format!("cannot resolve the host of {text:?}: {reason}"),
                )
            })?;
        if let Some(earlier) = hosts.iter().find(|h| h.address == address) {
            return Err(source.error(
                line,
                column,
                format!(
                    "{text:?} is the address of {} too: every process needs its own address",
                    source.name_line(earlier.line)
                ),
            ));
        }
        hosts.push(Host {
            text: text.to_string(),
            line,
            address,
        });
    }
    Ok(hosts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(lines: &[&str]) -> Result<Vec<Host>> {
        let source = HostSource::File(PathBuf::from("hosts"));
        parse_hosts(
            lines.iter().enumerate().map(|(i, l)| (i as u64 + 1, *l)),
            &source,
        )
    }

    fn message(lines: &[&str]) -> String {
        check(lines).unwrap_err().to_string()
    }

    #[test]
    fn good_lines_resolve_in_order() {
        let hosts = check(&["127.0.0.1:7101", "  localhost:7102", "[::1]:7103"]).unwrap();
        assert_eq!(hosts.len(), 3);
        assert_eq!(hosts[1].line, 2);
        assert_eq!(hosts[0].address.port(), 7101);
        assert!(hosts[2].address.is_ipv6());
    }

    #[test]
    fn every_bad_line_is_named_with_its_reason() {
        let m = message(&["127.0.0.1:7101", "notahost"]);
        assert!(m.starts_with("hosts:2:1: expected `host:port`"), "{m}");
        let m = message(&["127.0.0.1:99999"]);
        assert!(m.starts_with("hosts:1:11: port 99999"), "{m}");
        let m = message(&["127.0.0.1:x"]);
        assert!(m.contains("not a number"), "{m}");
        let m = message(&["127.0.0.1:0"]);
        assert!(m.contains("port 0"), "{m}");
        let m = message(&["127.0.0.1:7101", "127.0.0.1:7101"]);
        assert!(
            m.starts_with("hosts:2:1:") && m.contains("hosts:1 too"),
            "{m}"
        );
        let m = message(&["127.0.0.1:7101 127.0.0.1:7102"]);
        assert!(m.contains("one `host:port` per line"), "{m}");
        let m = message(&[":7101"]);
        assert!(m.contains("no host"), "{m}");
        let m = message(&["no-such-host.invalid:7101"]);
        assert!(m.contains("cannot resolve"), "{m}");
    }
}
