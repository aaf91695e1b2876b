//! `rafuzz`: validate, allocate, check and fuzz register allocation cases.
//! The commands and exit statuses are fixed by the format specification.

use clap::{Parser, Subcommand};
use std::path::PathBuf;

#[derive(Parser)]
#[command(
    name = "rafuzz",
    version,
    about = "Differential fuzzing and verification of register allocators"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check that each case is valid; prints FILE:LINE:COL: message per error.
    Validate {
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Name the allocators and the fuzz targets.
    List,
}

fn main() {
    let cli = Cli::parse();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let status = match cli.command {
        Command::Validate { files } => fuzz_targets::cli::validate(&files, &mut out),
        Command::List => fuzz_targets::cli::list(&mut out),
    };
    drop(out);
    std::process::exit(status);
}
