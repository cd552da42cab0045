//! `sp report`: the page with the profiles inside ([`sp::page`]), as one offline HTML file.

use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};

use super::options::{OutputArg, RegionFilter};
use super::Failure;

/// Write one offline HTML report: the page with the profiles embedded
///
/// The report is sp's page (sp.html) with the profiles inside it: open it in any browser,
/// with no network and no server, and it opens on the Overview; two or more profiles open
/// compared. Copy it off the cluster, mail it, or keep it from CI.
///
/// The page is taken from --page, else $SP_PAGE, else sp.html beside the sp binary (as
/// the release archives ship it). scripts/build-web.sh builds it as web/dist/sp.html.
///
/// --include, --exclude, --ranks and --sort set the page's filters and sort, as sp
/// inspect takes them; the reader can change them there.
///
/// Examples:
///   sp report run.h5 -o report.html
///   sp report run.h5 -o solver.html --include 'solve.*' --ranks 0-3 --sort total
///   sp report before.h5 after.h5 -o compare.html --page web/dist/sp.html
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct Opts {
    /// The profiles to embed.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    #[command(flatten)]
    output: OutputArg,
    /// The page to embed them in (default: $SP_PAGE, else sp.html beside the binary).
    #[arg(long, value_name = "SP.HTML")]
    page: Option<PathBuf>,
    #[command(flatten)]
    filter: RegionFilter,
    /// The region table's order, as sp inspect --sort.
    #[arg(long, default_value = "start", value_parser = super::inspect::sort_names())]
    sort: String,
    /// Embed the whole profiles (auto: when they total at most 64 MiB, else refuse).
    #[arg(long, value_enum, default_value = "auto")]
    events: Events,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Events {
    Auto,
    Always,
}

/// The most `--events auto` embeds.
const AUTO_LIMIT: u64 = 64 << 20;

pub fn run(opts: Opts) -> Result<(), Failure> {
    opts.filter.selection()?; // a bad pattern or rank list is a usage error, before any work
    opts.output.prepare()?;
    let page_path = find_page(opts.page.as_deref())?;
    let page = std::fs::read_to_string(&page_path)
        .map_err(|e| Failure::io(&page_path, "cannot read the page", e))?;
    let mut total = 0u64;
    for path in &opts.files {
        let meta = std::fs::metadata(path).map_err(|e| Failure::io(path, "cannot open", e))?;
        total = total.saturating_add(meta.len());
    }
    if opts.events == Events::Auto && total > AUTO_LIMIT {
        return Err(Failure::new(format!(
            "the profiles total {} MiB, over the 64 MiB that --events auto embeds; \
             pass --events always to embed them all the same",
            total >> 20
        )));
    }
    let mut contents = Vec::with_capacity(opts.files.len());
    for path in &opts.files {
        let bytes = std::fs::read(path).map_err(|e| Failure::io(path, "cannot open", e))?;
        // Only profiles the page can open: anything else fails here, named.
        if sp::schema::json::is_json(&bytes) {
            return Err(Failure::in_file(
                path.display(),
                "a JSON profile, which the page does not open yet; give sp report the .h5 \
                 it was exported from",
            ));
        }
        sp::hdf5lite::reader::File::open(bytes.as_slice()).map_err(|e| Failure::hdf5(path, e))?;
        contents.push(bytes);
    }
    let names: Vec<String> = opts.files.iter().map(|p| file_name(p)).collect();
    let files: Vec<sp::page::Embedded> = names
        .iter()
        .zip(&contents)
        .map(|(name, bytes)| sp::page::Embedded { name, bytes })
        .collect();
    let given = |v: &Option<Vec<String>>| v.clone().unwrap_or_default();
    let opening = sp::page::Opening {
        include: given(&opts.filter.include),
        exclude: given(&opts.filter.exclude),
        ranks: given(&opts.filter.ranks),
        sort: Some(opts.sort),
    };
    let report = sp::page::embed(&page, &files, &opening)
        .map_err(|e| Failure::in_file(page_path.display(), e))?;
    opts.output.write(report.as_bytes())
}

/// The page: `flag`, else `$SP_PAGE`, else `sp.html` beside the running binary.
fn find_page(flag: Option<&Path>) -> Result<PathBuf, Failure> {
    if let Some(path) = flag {
        return Ok(path.to_owned());
    }
    if let Some(path) = std::env::var_os("SP_PAGE") {
        return Ok(PathBuf::from(path));
    }
    let beside = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|dir| dir.join("sp.html")))
        .filter(|p| p.is_file());
    beside.ok_or_else(|| {
        Failure::usage(
            "sp report needs the page, sp.html: pass --page FILE or set SP_PAGE \
             (scripts/build-web.sh builds web/dist/sp.html; the release archives put it beside sp)",
        )
    })
}

/// The name the page shows for `path`: its file name.
fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}
