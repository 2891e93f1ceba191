//! Clusters of child processes on 127.0.0.1 for the tests: a scratch
//! directory, free ports, a host file, and children that are killed when
//! the test ends (passes or fails), with every wait bounded.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A scratch directory for one test, removed at the end.
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("dyngraph-dist-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        std::fs::remove_dir_all(&self.0).ok();
    }
}

/// Running children, killed when dropped.
pub struct Children {
    pub children: Vec<Child>,
    pub stderr: Vec<PathBuf>,
    pub stdout: Vec<PathBuf>,
}

impl Drop for Children {
    fn drop(&mut self) {
        for child in &mut self.children {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Children {
    /// Waits for the children `which` until `limit`; kills them all and
    /// panics with their stderr when it passes. Returns each one's exit
    /// code and when it ended (from the call).
    pub fn wait_for(&mut self, which: &[usize], limit: Duration) -> Vec<(Option<i32>, Duration)> {
        let started = Instant::now();
        let mut ended: Vec<Option<(Option<i32>, Duration)>> = vec![None; which.len()];
        while ended.iter().any(Option::is_none) {
            for (slot, &i) in ended.iter_mut().zip(which) {
                if slot.is_none()
                    && let Some(status) = self.children[i].try_wait().unwrap()
                {
                    *slot = Some((status.code(), started.elapsed()));
                }
            }
            if started.elapsed() > limit {
                let stderr = self.stderr_text();
                for child in &mut self.children {
                    let _ = child.kill();
                }
                panic!("children still running after {limit:?}; stderr:\n{stderr}");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        ended.into_iter().flatten().collect()
    }

    /// Waits for every child; their exit codes.
    pub fn wait_all(&mut self, limit: Duration) -> Vec<Option<i32>> {
        let all: Vec<usize> = (0..self.children.len()).collect();
        self.wait_for(&all, limit)
            .into_iter()
            .map(|(code, _)| code)
            .collect()
    }

    pub fn stderr_of(&self, process: usize) -> String {
        std::fs::read_to_string(&self.stderr[process]).unwrap_or_default()
    }

    pub fn stdout_of(&self, process: usize) -> String {
        std::fs::read_to_string(&self.stdout[process]).unwrap_or_default()
    }

    pub fn stderr_text(&self) -> String {
        (0..self.stderr.len())
            .map(|i| format!("--- process {i} ---\n{}", self.stderr_of(i)))
            .collect()
    }

    /// Sends `signal` to child `i`.
    pub fn signal(&self, i: usize, signal: &str) {
        let status = Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(self.children[i].id().to_string())
            .status()
            .unwrap();
        assert!(status.success(), "kill -{signal} failed");
    }
}

/// Free ports on 127.0.0.1: bound by the OS, then released for the
/// children (a port taken in between makes the start fail; callers retry).
pub fn free_ports(count: usize) -> Vec<u16> {
    let listeners: Vec<TcpListener> = (0..count)
        .map(|_| TcpListener::bind("127.0.0.1:0").unwrap())
        .collect();
    listeners
        .iter()
        .map(|l| l.local_addr().unwrap().port())
        .collect()
}

/// Writes a host file of `processes` free ports in `dir`.
pub fn hostfile(dir: &Path, processes: usize) -> PathBuf {
    let path = dir.join("hosts");
    let lines: Vec<String> = free_ports(processes)
        .iter()
        .map(|p| format!("127.0.0.1:{p}"))
        .collect();
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

/// Starts one child per process of `processes` (child `i` is process
/// `processes.start + i`): `command(process)` builds its command; stdin is
/// empty, stdout and stderr go to files of `dir`.
pub fn start_each(
    dir: &Path,
    processes: std::ops::Range<usize>,
    command: impl Fn(usize) -> Command,
) -> Children {
    let mut children = Children {
        children: Vec::new(),
        stderr: Vec::new(),
        stdout: Vec::new(),
    };
    for process in processes {
        let stderr = dir.join(format!("stderr{process}"));
        let stdout = dir.join(format!("stdout{process}"));
        let child = command(process)
            .stdin(Stdio::null())
            .stdout(std::fs::File::create(&stdout).unwrap())
            .stderr(std::fs::File::create(&stderr).unwrap())
            .spawn()
            .unwrap();
        children.children.push(child);
        children.stderr.push(stderr);
        children.stdout.push(stdout);
    }
    children
}

pub fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| s.to_string()).collect()
}
