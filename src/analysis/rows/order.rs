//! `--sort`: rows by a statistic (descending, ties by name), or in start order with every
//! call path's children under it (`summary.region_rows`' ordering).

use crate::sort::SortSlice;
use std::collections::HashMap;

use super::{RegionRow, SortKey};

/// `rows` in `sort` order, as [`region_rows`](super::region_rows) gives them: by the
/// statistic, largest first, rows without it last, ties by name and then in the order
/// given; by name; or by start with each call path's children under it, in start order.
/// From [`unsorted_rows_with`](super::unsorted_rows_with)'s order it is `region_rows`'
/// table for that key, so a front end re-sorts rows it keeps without building them again.
pub fn sort_rows(mut rows: Vec<RegionRow>, sort: SortKey) -> Vec<RegionRow> {
    if sort != SortKey::Start {
        rows.sort_stable_by(|a, b| a.name.cmp(&b.name));
        if sort != SortKey::Name {
            rows.sort_stable_by(|a, b| {
                let ka = a.sort_value(sort);
                let kb = b.sort_value(sort);
                let key = |k: Option<f64>| (k.is_some(), k.unwrap_or(0.0));
                let (pa, va) = key(ka);
                let (pb, vb) = key(kb);
                pb.cmp(&pa).then(vb.total_cmp(&va))
            });
        }
        return rows;
    }
    let path_rows: Vec<usize> = (0..rows.len())
        .filter(|&i| rows[i].call_path.is_some())
        .collect();
    let by_path: HashMap<Vec<String>, usize> = path_rows
        .iter()
        .filter_map(|&i| Some((rows[i].call_path.clone()?, i)))
        .collect();
    let mut children: HashMap<usize, Vec<usize>> = HashMap::new();
    let mut roots = Vec::new();
    for &i in &path_rows {
        let p = rows[i].call_path.as_deref().unwrap_or(&[]);
        let parent = by_path.get(&p[..p.len().saturating_sub(1)]).copied();
        match parent {
            Some(parent) if p.len() > 1 => children.entry(parent).or_default().push(i),
            _ => roots.push(i),
        }
    }
    fn subtree(
        i: usize,
        rows: &[RegionRow],
        children: &HashMap<usize, Vec<usize>>,
        out: &mut Vec<usize>,
    ) {
        out.push(i);
        if let Some(kids) = children.get(&i) {
            let mut kids = kids.clone();
            kids.sort_stable_by(|a, b| rows[*a].start.total_cmp(&rows[*b].start));
            for k in kids {
                subtree(k, rows, children, out);
            }
        }
    }
    let mut blocks: Vec<(f64, usize, Vec<usize>)> = Vec::new();
    for (n, &root) in roots.iter().enumerate() {
        let mut out = Vec::new();
        subtree(root, &rows, &children, &mut out);
        blocks.push((rows[root].start, n, out));
    }
    let root_count = blocks.len();
    for (n, i) in (0..rows.len())
        .filter(|&i| rows[i].call_path.is_none())
        .enumerate()
    {
        blocks.push((rows[i].start, root_count + n, vec![i]));
    }
    blocks.sort_stable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let mut slots: Vec<Option<RegionRow>> = rows.into_iter().map(Some).collect();
    blocks
        .into_iter()
        .flat_map(|(_, _, idx)| idx)
        .filter_map(|i| slots.get_mut(i).and_then(Option::take))
        .collect()
}
