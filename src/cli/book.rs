//! `connect4 book`: build, merge, verify and describe opening books.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::str::FromStr;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use connect4::Rules;
use connect4::book::{Book, BookError};
use connect4::lab::book_build::{self, BuildEnd, BuildOptions, Shard};
use connect4::lab::layer_build::{self, LayerOptions};

/// The tree builder's table by default, in MiB.
const TREE_HASH_MB: usize = 1024;
/// The layer builder's table by default, in MiB.
const LAYER_HASH_MB: usize = 16;

/// What to do with a book.
#[derive(clap::Subcommand)]
pub enum What {
    /// Build a book with the solver, or carry on building the one in --out.
    #[command(after_help = "Example: connect4 book build --out book.c4book --depth 10 --time 3600")]
    Build(BuildArgs),
    /// Combine books of one board (for example the shards of one ply) and
    /// mark the plies they complete.
    #[command(
        after_help = "Example: connect4 book merge --out book.c4book part1.c4book part2.c4book"
    )]
    Merge(MergeArgs),
    /// Re-solve a random sample of a book's positions and compare.
    #[command(after_help = "Example: connect4 book verify --sample 200")]
    Verify(VerifyArgs),
    /// Print what a book covers.
    #[command(
        after_help = "Example: connect4 book stats book/7x6x4.c4book\n         connect4 book stats --coverage   # every position of each layer counted"
    )]
    Stats(StatsArgs),
}

/// Arguments of `book build`.
#[derive(clap::Args)]
pub struct BuildArgs {
    /// The book file: read first if it exists, then rewritten as work is done.
    #[arg(long)]
    out: PathBuf,
    /// Store the strategy trees down to this ply.
    #[arg(long, default_value_t = 12)]
    depth: u32,
    /// Stop after this many seconds (the file keeps what was solved).
    #[arg(long)]
    time: Option<f64>,
    /// Board as COLUMNSxROWSxINAROW of a new book (default 7x6x4); an
    /// existing book keeps its own.
    #[arg(long)]
    rules: Option<Rules>,
    /// The solver's table size in MiB (default 1024; with --layer 16: its
    /// positions are small searches, and a table that stays in the caches
    /// solved a sample of ply 11 in 50 ms a position against 69 ms with
    /// 1024).
    #[arg(long)]
    hash_mb: Option<usize>,
    /// Threads that search, sharing the table (helpers prove the outcome and the root's children).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
    threads: u32,
    /// Solve only part I of N of the next unfinished ply (for job arrays);
    /// `book merge` puts the parts together.
    #[arg(long)]
    shard: Option<ShardArg>,
    /// Save at least this often, in seconds.
    #[arg(long, default_value_t = 60)]
    checkpoint: u64,
    /// Also give the side that loses at a root its tree, down to this ply:
    /// whatever mistakes the winner makes before it, an engine on the
    /// losing side finds its moves in the book (default: the book's own
    /// setting, 0 for a new book: none).
    #[arg(long, value_name = "PLY", value_parser = clap::value_parser!(u32).range(0..=64))]
    deviations: Option<u32>,
    /// Instead of the trees, fill the layer of this ply: the outcome and a
    /// move that keeps it for every position a game reaches at that ply
    /// (with --shard, one run of its slots).
    #[arg(long, value_name = "PLY", conflicts_with_all = ["depth", "deviations"],
          value_parser = clap::value_parser!(u32).range(1..=64))]
    layer: Option<u32>,
}

/// Arguments of `book merge`.
#[derive(clap::Args)]
pub struct MergeArgs {
    /// The merged book.
    #[arg(long)]
    out: PathBuf,
    /// The books to merge.
    #[arg(required = true)]
    books: Vec<PathBuf>,
}

/// Arguments of `book verify`.
#[derive(clap::Args)]
pub struct VerifyArgs {
    /// The book file; without one, the book shipped with the engine.
    book: Option<PathBuf>,
    /// How many positions to re-solve.
    #[arg(long, default_value_t = 100)]
    sample: usize,
    /// Only positions of at least this many plies (early ones take long).
    #[arg(long, default_value_t = 0)]
    min_ply: u32,
    /// Check the layer of this ply instead of the trees.
    #[arg(long, value_name = "PLY", conflicts_with = "min_ply")]
    layer: Option<u32>,
    /// Seed of the random sample.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The solver's table size in MiB.
    #[arg(long, default_value_t = 256)]
    hash_mb: usize,
}

/// Arguments of `book stats`.
#[derive(clap::Args)]
pub struct StatsArgs {
    /// The book file; without one, the book shipped with the engine.
    book: Option<PathBuf>,
    /// Also count, for each layer, the positions a game reaches at its ply,
    /// to show whether it misses any: every slot is decoded, which takes a
    /// minute and more for the shipped book's layer of ply 15.
    #[arg(long)]
    coverage: bool,
}

/// `I/N` on the command line.
#[derive(Clone, Copy, Debug)]
pub struct ShardArg(Shard);

impl FromStr for ShardArg {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || format!("'{s}' is not a shard: expected I/N with 1 <= I <= N, such as 3/8");
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let index: u64 = i.trim().parse().map_err(|_| bad())?;
        let count: u64 = n.trim().parse().map_err(|_| bad())?;
        if index == 0 || index > count {
            return Err(bad());
        }
        Ok(ShardArg(Shard { index, count }))
    }
}

/// Runs a `book` subcommand.
pub fn run(what: &What, out: &mut impl Write) -> Result<ExitCode> {
    match what {
        What::Build(args) => build_book(args, out),
        What::Merge(args) => merge(args, out),
        What::Verify(args) => verify(args, out),
        What::Stats(args) => stats(args, out),
    }
}

fn open_or_shipped(path: Option<&Path>) -> Result<Book, BookError> {
    match path {
        Some(p) => Book::load(p),
        None => Ok(Book::shipped().as_ref().clone()),
    }
}

fn build_book(args: &BuildArgs, out: &mut impl Write) -> Result<ExitCode> {
    let mut book = if args.out.exists() {
        let book = Book::load(&args.out)?;
        if let Some(rules) = args.rules.filter(|&r| r != book.rules()) {
            bail!(
                "'{}' is a book for the {} board, but --rules says {rules}",
                args.out.display(),
                book.rules(),
            );
        }
        book
    } else {
        Book::new(args.rules.unwrap_or(Rules::STANDARD))
    };
    let time = match args.time {
        Some(t) if !(t.is_finite() && t > 0.0) => {
            bail!("--time {t}: expected a positive number of seconds")
        }
        t => t.map(Duration::from_secs_f64),
    };
    if let Some(ply) = args.layer {
        return build_layer(&mut book, args, ply, time, out);
    }
    let options = BuildOptions {
        depth: args.depth,
        hash_mb: args.hash_mb.unwrap_or(TREE_HASH_MB),
        threads: args.threads as usize,
        time,
        shard: args.shard.map(|s| s.0),
        checkpoint: Duration::from_secs(args.checkpoint),
        deviations: args.deviations,
    };
    let before = book.len();
    let start = Instant::now();
    let cpu_start = connect4::lab::cpu_time::own_seconds().unwrap_or(0.0);
    let end = book_build::build(&mut book, &args.out, &options)
        .with_context(|| format!("building '{}'", args.out.display()))?;
    let how = ending(end);
    writeln!(
        out,
        "{}: {} entries (+{}), complete to ply {}, {how}; {:.1} s wall, {:.1} s CPU",
        args.out.display(),
        book.len(),
        book.len() - before,
        book.complete_ply(),
        start.elapsed().as_secs_f64(),
        connect4::lab::cpu_time::own_seconds().unwrap_or(0.0) - cpu_start,
    )?;
    Ok(ExitCode::SUCCESS)
}

/// What `how` a build ended says to the user.
fn ending(end: BuildEnd) -> &'static str {
    match end {
        BuildEnd::Complete => "complete",
        BuildEnd::OutOfTime => "stopped at the time limit (run again to carry on)",
        BuildEnd::ShardDone => "shard done (merge the shards with 'connect4 book merge')",
    }
}

fn build_layer(
    book: &mut Book,
    args: &BuildArgs,
    ply: u32,
    time: Option<Duration>,
    out: &mut impl Write,
) -> Result<ExitCode> {
    let options = LayerOptions {
        ply,
        hash_mb: args.hash_mb.unwrap_or(LAYER_HASH_MB),
        threads: args.threads as usize,
        time,
        shard: args.shard.map(|s| s.0),
        checkpoint: Duration::from_secs(args.checkpoint),
    };
    let before = book.layer(ply).map_or(0, |l| l.known());
    let start = Instant::now();
    let cpu_start = connect4::lab::cpu_time::own_seconds().unwrap_or(0.0);
    let end = layer_build::build_layer(book, &args.out, &options).with_context(|| {
        format!(
            "building the layer of ply {ply} in '{}'",
            args.out.display()
        )
    })?;
    let layer = book.layer(ply).expect("the build made it");
    writeln!(
        out,
        "{}: layer of ply {ply}: {} of {} slots known (+{}), {}; {:.1} s wall, {:.1} s CPU",
        args.out.display(),
        layer.known(),
        layer.slots(),
        layer.known() - before,
        ending(end),
        start.elapsed().as_secs_f64(),
        connect4::lab::cpu_time::own_seconds().unwrap_or(0.0) - cpu_start,
    )?;
    Ok(ExitCode::SUCCESS)
}

fn merge(args: &MergeArgs, out: &mut impl Write) -> Result<ExitCode> {
    let (first, rest) = args.books.split_first().expect("clap requires one book");
    let mut merged = Book::load(first)?;
    for path in rest {
        merged
            .merge(&Book::load(path)?)
            .with_context(|| format!("merging '{}'", path.display()))?;
    }
    let complete = book_build::finish_plies(&mut merged, u32::MAX);
    merged.save(&args.out)?;
    let layers: String = merged
        .layers()
        .iter()
        .map(|l| format!("; layer of ply {}: {} slots known", l.ply(), l.known()))
        .collect();
    writeln!(
        out,
        "{}: {} entries, complete to ply {complete}{layers}",
        args.out.display(),
        merged.len()
    )?;
    Ok(ExitCode::SUCCESS)
}

fn verify(args: &VerifyArgs, out: &mut impl Write) -> Result<ExitCode> {
    let book = open_or_shipped(args.book.as_deref())?;
    let start = Instant::now();
    let (checked, wrong) = match args.layer {
        Some(ply) if book.layer(ply).is_none() => {
            bail!(
                "the book has no layer of ply {ply} (it has {})",
                layer_list(&book)
            )
        }
        Some(ply) => layer_build::verify_layer(&book, ply, args.sample, args.seed, args.hash_mb),
        None => book_build::verify(&book, args.sample, args.min_ply, args.seed, args.hash_mb),
    };
    for w in &wrong {
        writeln!(
            out,
            "position key {:#x}: the book says {}, the solver {}",
            w.key, w.book, w.solved
        )?;
    }
    writeln!(
        out,
        "{checked} positions re-solved in {:.1} s: {} disagree",
        start.elapsed().as_secs_f64(),
        wrong.len()
    )?;
    Ok(if wrong.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// The plies of `book`'s layers, in words.
fn layer_list(book: &Book) -> String {
    match book.layers() {
        [] => "none".into(),
        layers => {
            let plies: Vec<String> = layers.iter().map(|l| l.ply().to_string()).collect();
            format!("plies {}", plies.join(", "))
        }
    }
}

fn stats(args: &StatsArgs, out: &mut impl Write) -> Result<ExitCode> {
    let book = open_or_shipped(args.book.as_deref())?;
    let bytes = book.to_bytes().len();
    writeln!(out, "board {}", book.rules())?;
    writeln!(out, "complete to ply {}", book.complete_ply())?;
    writeln!(out, "losing sides' trees to ply {}", book.deviations())?;
    writeln!(out, "deepest stored ply {}", book.deepest_ply())?;
    writeln!(out, "entries {} ({bytes} bytes)", book.len())?;
    // Per ply, the positions the walk of the complete plies reaches.
    for (ply, n) in book_build::entries_per_ply(&book).iter().enumerate() {
        writeln!(out, "  ply {ply:2}: {n}")?;
    }
    for layer in book.layers() {
        if args.coverage {
            let (needed, known) = layer_build::coverage(&book, layer.ply());
            writeln!(
                out,
                "layer of ply {}: {known} of the {needed} positions a game reaches \
                 (not won at once), {} slots",
                layer.ply(),
                layer.slots(),
            )?;
        } else {
            writeln!(
                out,
                "layer of ply {}: {} positions known, {} slots",
                layer.ply(),
                layer.known(),
                layer.slots(),
            )?;
        }
    }
    if !args.coverage && !book.layers().is_empty() {
        writeln!(
            out,
            "(--coverage also counts the positions a game reaches at each layer's ply)"
        )?;
    }
    Ok(ExitCode::SUCCESS)
}
