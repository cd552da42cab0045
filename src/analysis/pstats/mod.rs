//! cProfile's `.prof` (pstats) files from a profile, as the reference's `export prof` and
//! `export plot-data --with prof` write them: one per (run, rank), a `marshal` dump of the
//! dict `(file, line, name) → (cc, nc, tt, ct, callers)` with times in seconds, which
//! pstats, snakeviz and gprof2dot read.
//!
//! Regions record no call graph, so the callers come from the nesting of the timestamps
//! ([`calltree::build`]). By default each distinct root-to-call path is its own entry,
//! named `parent > child`; `call_paths: false` gives one entry per region, with the
//! calling regions as its callers and recursion counted as pstats counts it (cumulative
//! time of the outermost call only). A synthetic `<label rank N>` frame calls every
//! top-level call, so tree viewers show the whole run. Sums are taken in the reference's
//! order, so every float has its bits.

pub mod marshal;

use std::collections::HashMap;

use marshal::Value;

use super::calltree::{self, Call};
use super::plot_data::durations::rank_row;
use super::plot_data::{regions, Run};
use super::{numeric, Error, Result, Selection};
use crate::schema::Region;

/// A pstats key: the region's source file and line when it has both, else `~` and 0.
type Key = (String, i64, String);

/// `(cc, nc, tt, ct)`: primitive and total calls, own and cumulative seconds.
type Times = (i64, i64, f64, f64);

/// One function of the dict: its key, its times and its callers' (in insertion order).
type Entry = (Key, Times, Vec<(Key, Times)>);

/// A region's source on the rank: file and line.
type Source = Option<(String, i64)>;

/// The pstats dict, in the insertion order of the reference's (a key inserted again keeps
/// its place and takes the new value, as a Python dict does).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Stats {
    entries: Vec<Entry>,
    index: HashMap<Key, usize>,
}

impl Stats {
    fn slot(&mut self, key: Key) -> usize {
        if let Some(&i) = self.index.get(&key) {
            return i;
        }
        self.index.insert(key.clone(), self.entries.len());
        self.entries.push((key, (0, 0, 0.0, 0.0), Vec::new()));
        self.entries.len() - 1
    }

    fn set(&mut self, key: Key, times: Times) {
        let i = self.slot(key);
        self.entries[i].1 = times;
        self.entries[i].2.clear();
    }

    fn add_caller(&mut self, key: &Key, caller: Key, times: Times) {
        let Some(&i) = self.index.get(key) else {
            return;
        };
        let callers = &mut self.entries[i].2;
        match callers.iter_mut().find(|(k, _)| *k == caller) {
            Some(slot) => slot.1 = times,
            None => callers.push((caller, times)),
        }
    }

    /// Number of entries (functions).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The `.prof` bytes: the dict marshalled.
    pub fn to_bytes(&self) -> Vec<u8> {
        let key = |(file, line, name): &Key| {
            Value::Tuple(vec![
                Value::Str(file.clone()),
                Value::Int(*line),
                Value::Str(name.clone()),
            ])
        };
        let times = |t: &Times| {
            vec![
                Value::Int(t.0),
                Value::Int(t.1),
                Value::Float(t.2),
                Value::Float(t.3),
            ]
        };
        let dict = Value::Dict(
            (self.entries.iter())
                .map(|(k, t, callers)| {
                    let mut value = times(t);
                    value.push(Value::Dict(
                        callers
                            .iter()
                            .map(|(c, ct)| (key(c), Value::Tuple(times(ct))))
                            .collect(),
                    ));
                    (key(k), Value::Tuple(value))
                })
                .collect(),
        );
        let mut out = Vec::new();
        marshal::write(&dict, &mut out);
        out
    }
}

/// The reference's `_key`.
fn key(name: &str, source: Option<(&str, i64)>) -> Key {
    match source {
        Some((file, line)) if !file.is_empty() => (file.to_owned(), line, name.to_owned()),
        _ => ("~".to_owned(), 0, name.to_owned()),
    }
}

/// The kept regions' calls on `rank`, with each region's source there; `None` when the
/// rank has no calls.
fn rank_calls(run: &Run, kept: &[&Region], rank: u32) -> Result<Option<(Vec<Call>, Vec<Source>)>> {
    let mut rows = Vec::with_capacity(kept.len());
    let mut sources = Vec::with_capacity(kept.len());
    for region in kept {
        let stored = region.rank(rank);
        sources.push(
            stored.and_then(|s| Some((s.source_file.as_deref()?.to_owned(), s.source_line?))),
        );
        rows.push(rank_row(run, region, rank)?);
    }
    let refs: Vec<&Region> = rows.iter().collect();
    let calls = calltree::build(&refs, rank).map_err(|_| {
        Error::Unavailable(format!(
            "the calls of rank {rank} do not nest (one starts inside another and ends after it), so they have no call tree"
        ))
    })?;
    Ok((!calls.is_empty()).then_some((calls, sources)))
}

fn seconds(ns: i64) -> f64 {
    ns as f64 / 1e9
}

/// The pstats dict of `rank` of `run` over the regions `selection` keeps, with the root
/// frame `<root>`; `None` when the rank has no calls there.
pub fn stats(
    run: &Run,
    selection: &Selection,
    rank: u32,
    root: &str,
    call_paths: bool,
) -> Result<Option<Stats>> {
    let kept = regions(run.profile, selection)?;
    if u64::from(rank) >= run.profile.num_ranks {
        return Err(Error::Unavailable(format!(
            "invalid rank requested: {rank}"
        )));
    }
    let Some((calls, sources)) = rank_calls(run, &kept, rank)? else {
        return Ok(None);
    };
    let region_key =
        |r: usize, name: &str| key(name, sources[r].as_ref().map(|(f, l)| (f.as_str(), *l)));
    let root_key = key(root, None);
    let root_seconds = numeric::sum(
        &(calls.iter().filter(|c| c.parent.is_none()))
            .map(|c| seconds(c.end_ns - c.start_ns))
            .collect::<Vec<_>>(),
    );
    let mut stats = Stats::default();
    if call_paths {
        by_path(&calls, &kept, &region_key, &root_key, &mut stats);
    } else {
        by_region(&calls, &kept, &region_key, &root_key, &mut stats);
    }
    stats.set(root_key, (1, 1, 0.0, root_seconds));
    Ok(Some(stats))
}

/// One entry per distinct root-to-call path (the reference's `_build_call_path_pstats_dict`).
fn by_path(
    calls: &[Call],
    kept: &[&Region],
    region_key: &dyn Fn(usize, &str) -> Key,
    root_key: &Key,
    stats: &mut Stats,
) {
    // Path of each call, and per path: its name, parent path, region and sums.
    let mut path_of = Vec::with_capacity(calls.len());
    let mut ids: HashMap<(Option<usize>, usize), usize> = HashMap::new();
    struct Path {
        name: String,
        parent: Option<usize>,
        region: usize,
        calls: i64,
        own: f64,
        cumulative: f64,
    }
    let mut paths: Vec<Path> = Vec::new();
    for c in calls {
        let parent = c.parent.map(|p| path_of[p]);
        let id = *ids.entry((parent, c.region)).or_insert_with(|| {
            let name = &kept[c.region].name;
            paths.push(Path {
                name: match parent {
                    Some(p) => format!("{} > {name}", paths[p].name),
                    None => name.clone(),
                },
                parent,
                region: c.region,
                calls: 0,
                own: 0.0,
                cumulative: 0.0,
            });
            paths.len() - 1
        });
        path_of.push(id);
        let p = &mut paths[id];
        p.calls += 1;
        p.own += seconds(c.exclusive_ns);
        p.cumulative += seconds(c.end_ns - c.start_ns);
    }
    let keys: Vec<Key> = paths
        .iter()
        .map(|p| region_key(p.region, &p.name))
        .collect();
    let times = |p: &Path| (p.calls, p.calls, p.own, p.cumulative);
    for (p, k) in paths.iter().zip(&keys) {
        stats.set(k.clone(), times(p));
    }
    for (p, k) in paths.iter().zip(&keys) {
        let caller = p.parent.map_or(root_key, |parent| &keys[parent]);
        stats.add_caller(k, caller.clone(), times(p));
    }
}

/// One entry per region, with its calling regions (the reference's name-aggregated dict).
fn by_region(
    calls: &[Call],
    kept: &[&Region],
    region_key: &dyn Fn(usize, &str) -> Key,
    root_key: &Key,
    stats: &mut Stats,
) {
    let n = kept.len();
    // A call is recursive when an earlier call of its region has not ended by its end.
    let mut latest_end: Vec<Option<i64>> = vec![None; n];
    let mut region = vec![(0i64, 0i64, 0.0f64, 0.0f64); n];
    // Per (region, caller column) pair, column 0 being the root.
    let mut pairs: Vec<(i64, i64, f64, f64)> = vec![(0, 0, 0.0, 0.0); n * (n + 1)];
    for c in calls {
        let recursive = latest_end[c.region].is_some_and(|end| c.end_ns <= end);
        let slot = &mut latest_end[c.region];
        *slot = Some(slot.map_or(c.end_ns, |e| e.max(c.end_ns)));
        let primitive = i64::from(!recursive);
        let own = seconds(c.exclusive_ns);
        let cumulative = if recursive {
            0.0
        } else {
            seconds(c.end_ns - c.start_ns)
        };
        let column = c.parent.map_or(0, |p| calls[p].region + 1);
        for t in [
            &mut region[c.region],
            &mut pairs[c.region * (n + 1) + column],
        ] {
            t.0 += primitive;
            t.1 += 1;
            t.2 += own;
            t.3 += cumulative;
        }
    }
    let keys: Vec<Key> = (kept.iter().enumerate())
        .map(|(r, g)| region_key(r, &g.name))
        .collect();
    for (t, k) in region.iter().zip(&keys) {
        if t.1 > 0 {
            stats.set(k.clone(), *t);
        }
    }
    for (index, t) in pairs.iter().enumerate().filter(|(_, t)| t.1 > 0) {
        let (r, column) = (index / (n + 1), index % (n + 1));
        let caller = if column == 0 {
            root_key
        } else {
            &keys[column - 1]
        };
        stats.add_caller(&keys[r], caller.clone(), *t);
    }
}

/// The reference's `_filename_slug`: runs of characters other than word characters, `.`,
/// `+` and `-` become `_`, trimmed of `_` (the label itself when nothing is left).
pub fn filename_slug(label: &str) -> String {
    let mut slug = String::new();
    let mut gap = false;
    for ch in label.chars() {
        if ch.is_alphanumeric() || matches!(ch, '_' | '.' | '+' | '-') {
            slug.push(ch);
            gap = false;
        } else if !gap {
            slug.push('_');
            gap = true;
        }
    }
    let trimmed = slug.trim_matches('_');
    if trimmed.is_empty() {
        label.to_owned()
    } else {
        trimmed.to_owned()
    }
}

/// The `.prof` files of `runs` (labelled `labels`, unique) over `selection`'s regions, for
/// `ranks` (the reference's default: rank 0), named from `stem` as the reference names
/// them: `STEM_rank<N>.prof`, with the run's label slug before `_rank` when there are
/// several runs. Ranks with no calls get no file; none at all is an error, and so is a
/// rank a run does not have (as the reference's).
pub fn files(
    runs: &[Run],
    labels: &[String],
    selection: &Selection,
    ranks: &[u32],
    stem: &str,
    call_paths: bool,
) -> Result<Vec<(String, Vec<u8>)>> {
    let mut out = Vec::new();
    for (run, label) in runs.iter().zip(labels) {
        for &rank in ranks {
            if u64::from(rank) >= run.profile.num_ranks {
                return Err(Error::Unavailable(format!(
                    "invalid rank requested: {rank} ({label} has {} ranks)",
                    run.profile.num_ranks
                )));
            }
            let root = format!("<{label} rank {rank}>");
            let Some(stats) = stats(run, selection, rank, &root, call_paths)? else {
                continue;
            };
            let name = if runs.len() > 1 {
                format!("{stem}_{}_rank{rank}.prof", filename_slug(label))
            } else {
                format!("{stem}_rank{rank}.prof")
            };
            out.push((name, stats.to_bytes()));
        }
    }
    if out.is_empty() {
        return Err(Error::Unavailable(
            "no calls recorded for the requested ranks".into(),
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_replace_runs_of_other_characters() {
        assert_eq!(filename_slug("128 ranks"), "128_ranks");
        assert_eq!(filename_slug("  a/b:c "), "a_b_c");
        assert_eq!(filename_slug("v1.2+x-y"), "v1.2+x-y");
        assert_eq!(filename_slug("///"), "///");
    }

    #[test]
    fn a_key_falls_back_to_the_pseudo_file() {
        assert_eq!(key("a", Some(("f.py", 3))), ("f.py".into(), 3, "a".into()));
        assert_eq!(key("a", None), ("~".into(), 0, "a".into()));
        assert_eq!(key("a", Some(("", 3))), ("~".into(), 0, "a".into()));
    }

    #[test]
    fn a_key_set_again_keeps_its_place() {
        let mut s = Stats::default();
        s.set(key("a", None), (1, 1, 0.0, 1.0));
        s.set(key("b", None), (1, 1, 0.0, 1.0));
        s.set(key("a", None), (2, 2, 0.0, 2.0));
        assert_eq!(s.entries[0].0 .2, "a");
        assert_eq!(s.entries[0].1, (2, 2, 0.0, 2.0));
        assert_eq!(s.len(), 2);
    }
}
