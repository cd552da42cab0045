//! `sp-workload W1|W2|W3|W4|W6 OUTDIR [--seed N] [--scale F] [--ranks N] [--jobs N]`: writes a benchmark
//! workload as `OUTDIR/<name>_rank<NNNNN>.spt`, one file per rank, ranks in parallel.

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Instant;

use sp_bench::{write_rank, Spec};

const USAGE: &str = "\
usage: sp-workload W1|W2|W3|W4|W6 OUTDIR [--seed N] [--scale F] [--ranks N] [--jobs N]

Writes OUTDIR/<name>_rank<NNNNN>.spt (created if missing). The same name, seed and scale
always give the same bytes.
  --seed N    random seed (default 1)
  --scale F   multiply calls per region by F, at least 1 (default 1)
  --ranks N   write N ranks instead of the workload's own count (rank scaling)
  --jobs N    ranks written in parallel (default: available cores)";

struct Opts {
    spec: Spec,
    dir: PathBuf,
    seed: u64,
    jobs: usize,
}

fn parse_args(args: &[String]) -> Result<Opts, String> {
    let mut positional = Vec::new();
    let mut seed = 1u64;
    let mut scale = 1.0f64;
    let mut ranks = None;
    let mut jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_owned())),
            _ => (arg.as_str(), None),
        };
        let mut value = |name: &str| {
            inline
                .clone()
                .or_else(|| it.next().cloned())
                .ok_or(format!("{name} needs a value"))
        };
        match flag {
            "--seed" => {
                seed = value("--seed")?
                    .parse()
                    .map_err(|e| format!("--seed: {e}"))?
            }
            "--scale" => {
                scale = value("--scale")?
                    .parse()
                    .map_err(|e| format!("--scale: {e}"))?;
                if !(scale > 0.0 && scale.is_finite()) {
                    return Err("--scale must be a positive number".into());
                }
            }
            "--ranks" => {
                let n: u32 = value("--ranks")?
                    .parse()
                    .map_err(|e| format!("--ranks: {e}"))?;
                if n == 0 || n > 100_000 {
                    return Err(
                        "--ranks must be from 1 to 100000 (file names have 5 digits)".into(),
                    );
                }
                ranks = Some(n);
            }
            "--jobs" => {
                jobs = value("--jobs")?
                    .parse()
                    .map_err(|e| format!("--jobs: {e}"))?;
                jobs = jobs.max(1);
            }
            f if f.starts_with('-') => return Err(format!("unknown option {f}")),
            _ => positional.push(arg.clone()),
        }
    }
    let [name, dir] = positional.as_slice() else {
        return Err("expected a workload name and an output directory".into());
    };
    let mut spec = Spec::named(name).ok_or(format!("unknown workload {name}"))?;
    if let Some(ranks) = ranks {
        spec = spec.with_ranks(ranks);
    }
    Ok(Opts {
        spec: spec.scaled(scale),
        dir: PathBuf::from(dir),
        seed,
        jobs,
    })
}

fn write_one(dir: &Path, spec: &Spec, seed: u64, rank: u32) -> Result<(), String> {
    let path = dir.join(spec.file_name(rank));
    let fail = |e: std::io::Error| format!("{}: {e}", path.display());
    let file = File::create(&path).map_err(fail)?;
    let out =
        write_rank(BufWriter::with_capacity(1 << 20, file), spec, seed, rank).map_err(fail)?;
    out.into_inner().map_err(|e| fail(e.into_error()))?;
    Ok(())
}

fn run(opts: &Opts) -> Result<(), String> {
    std::fs::create_dir_all(&opts.dir).map_err(|e| format!("{}: {e}", opts.dir.display()))?;
    let started = Instant::now();
    let next = AtomicU32::new(0);
    let jobs = opts.jobs.min(opts.spec.ranks as usize).max(1);
    let results: Vec<Result<(), String>> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..jobs)
            .map(|_| {
                s.spawn(|| loop {
                    let rank = next.fetch_add(1, Ordering::Relaxed);
                    if rank >= opts.spec.ranks {
                        return Ok(());
                    }
                    write_one(&opts.dir, &opts.spec, opts.seed, rank)?;
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| {
                w.join()
                    .unwrap_or_else(|_| Err("a writer thread panicked".into()))
            })
            .collect()
    });
    results.into_iter().collect::<Result<(), String>>()?;
    let spec = &opts.spec;
    eprintln!(
        "sp-workload: {} ({} ranks x {} regions x {} calls): {} files, {:.1} MiB in {:.2} s",
        spec.name,
        spec.ranks,
        spec.regions,
        spec.calls,
        spec.ranks,
        spec.total_bytes() as f64 / (1u64 << 20) as f64,
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "-h" || a == "--help") {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    let opts = match parse_args(&args) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("sp-workload: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(&opts) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("sp-workload: {e}");
            ExitCode::FAILURE
        }
    }
}
