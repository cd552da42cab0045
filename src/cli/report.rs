//! `sp report`: the page with the profiles inside ([`sp::page`]), as one offline HTML file.

use std::path::{Path, PathBuf};

use clap::Args;
use sp::page::Events;

use super::local_file::{open_profile, ProfileFile as LocalProfile};
use super::options::{OutputArg, RegionFilter};
use super::Failure;

/// Write one offline HTML report: the page with the profiles embedded
///
/// The report is sp's page (sp.html) with the profiles inside it: open it in any browser,
/// with no network and no server, and it opens on the Overview; two or more profiles open
/// compared. Copy it off the cluster, mail it, or keep it from CI.
///
/// The page is taken from --page, else $SP_PAGE, else the one inside this binary (a
/// release build carries it), else sp.html beside the binary.
///
/// --events never (and auto, past 64 MiB of profiles) embeds each profile's index only:
/// the overview, regions and ranks open; the views of calls ask for the .h5, which
/// dropped onto the open report adds them.
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
    /// The page to embed them in (default: $SP_PAGE, else the built-in page).
    #[arg(long, value_name = "SP.HTML")]
    page: Option<PathBuf>,
    #[command(flatten)]
    filter: RegionFilter,
    /// The region table's order, as sp inspect --sort.
    #[arg(long, default_value = "start", value_parser = super::inspect::sort_names())]
    sort: String,
    /// Embed the calls too: always, never (the index only: tables, ranks and overview), or
    /// auto: when the profiles total at most 64 MiB.
    #[arg(long, default_value = "auto", value_parser = super::options::named(&Events::ALL))]
    events: Events,
}

pub fn run(opts: Opts) -> Result<(), Failure> {
    opts.filter.selection()?; // a bad pattern or rank list is a usage error, before any work
    opts.output.prepare()?;
    let (page_name, page) = load_page(opts.page.as_deref())?;
    let mut total = 0u64;
    for path in &opts.files {
        let meta = std::fs::metadata(path).map_err(|e| Failure::io(path, "cannot open", e))?;
        total = total.saturating_add(meta.len());
    }
    let index_only = opts.events.index_only(total);
    let mut carried = Vec::with_capacity(opts.files.len());
    for path in &opts.files {
        // Only profiles the page can open: anything else fails here, named.
        let LocalProfile::H5(h5) = open_profile(path)? else {
            return Err(Failure::in_file(
                path.display(),
                "a JSON profile, which the page does not open yet; give sp report the .h5 \
                 it was exported from",
            ));
        };
        let bytes = sp::page::carried(&h5, index_only);
        let name = path.file_name().unwrap_or(path.as_os_str());
        let name = name.to_string_lossy().into_owned();
        carried.push((name, bytes.map_err(|e| Failure::analysis(path, e.into()))?));
    }
    if index_only && opts.events == Events::Auto {
        eprintln!(
            "sp: the profiles total {} MiB, over the 64 MiB --events auto embeds whole: the \
             report holds their index only (--events always embeds the calls)",
            total >> 20
        );
    }
    let files: Vec<sp::page::Embedded> = (carried.iter())
        .map(|(name, bytes)| sp::page::Embedded {
            name,
            bytes,
            index_only,
        })
        .collect();
    let given = |v: &Option<Vec<String>>| v.clone().unwrap_or_default();
    let opening = sp::page::Opening {
        include: given(&opts.filter.include),
        exclude: given(&opts.filter.exclude),
        ranks: given(&opts.filter.ranks),
        sort: Some(opts.sort),
    };
    let report =
        sp::page::embed(&page, &files, &opening).map_err(|e| Failure::in_file(page_name, e))?;
    opts.output.write(report.as_bytes())
}

/// The page and the name its errors go by: `flag`, else `$SP_PAGE`, else the page this
/// binary carries, else `sp.html` beside it.
fn load_page(flag: Option<&Path>) -> Result<(String, String), Failure> {
    let given = flag
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("SP_PAGE").map(Into::into));
    let path = match given {
        Some(path) => path,
        None => match sp::page::built_in() {
            Some(page) => return Ok(("sp's built-in page".into(), page)),
            None => std::env::current_exe()
                .ok()
                .and_then(|exe| exe.parent().map(|dir| dir.join("sp.html")))
                .filter(|p| p.is_file())
                .ok_or_else(|| {
                    Failure::usage(
                        "this sp was built without its page, sp.html: pass --page FILE or set \
                         SP_PAGE (scripts/build-web.sh builds web/dist/sp.html; a release \
                         build with the wasm32 target installed carries it)",
                    )
                })?,
        },
    };
    let page = std::fs::read_to_string(&path)
        .map_err(|e| Failure::io(&path, "cannot read the page", e))?;
    Ok((path.display().to_string(), page))
}
