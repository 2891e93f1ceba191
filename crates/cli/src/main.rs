//! The `dyngraph` binary. Its subcommands (`replay`, `gen`, `load`, `run`,
//! `convert`) arrive with the CLI issue; until then it only says so.

fn main() {
    eprintln!("dyngraph: no subcommands yet; see the README for what works now");
    std::process::exit(2);
}
