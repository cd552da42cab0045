//! The page's table options, as `sp inspect` takes them: include/exclude patterns, a rank
//! list like `0-3,8`, the sort column and the percentage mode.

use serde_json::Value as Json;
use sp::analysis::pattern::Pattern;
use sp::analysis::{PercentageMode, Selection, SortKey};

/// Parsed options of one request.
pub struct Options {
    include: Vec<Pattern>,
    exclude: Vec<Pattern>,
    /// Whether any include/exclude pattern was given.
    filtered: bool,
    pub ranks: Option<Vec<u32>>,
    pub sort: SortKey,
    pub mode: PercentageMode,
}

/// Most ranks a range may name (as the CLI's `--ranks`).
const MAX_RANGE: u32 = 1_000_000;

impl Options {
    /// Reads `include`, `exclude` (lists of patterns), `ranks` (a spec string or null),
    /// `sort` and `mode` from a request; a bad pattern or rank spec is an error sentence.
    pub fn from_request(req: &Json) -> Result<Options, String> {
        let patterns = |key: &str| -> Result<Vec<Pattern>, String> {
            let mut out = Vec::new();
            for p in req[key].as_array().into_iter().flatten() {
                let p = p.as_str().unwrap_or_default().trim();
                if p.is_empty() {
                    continue;
                }
                out.push(
                    Pattern::new(p).map_err(|e| format!("The pattern {p:?} is not valid: {e}."))?,
                );
            }
            Ok(out)
        };
        let include = patterns("include")?;
        let exclude = patterns("exclude")?;
        let ranks = match req["ranks"].as_str().map(str::trim) {
            None | Some("") => None,
            Some(spec) => Some(parse_ranks(spec)?),
        };
        let sort_name = req["sort"].as_str().unwrap_or("start");
        let sort = SortKey::ALL
            .iter()
            .find(|(_, n)| *n == sort_name)
            .map(|(k, _)| *k)
            .ok_or_else(|| format!("There is no column {sort_name:?} to sort by."))?;
        let mode = match req["mode"].as_str() {
            Some("exclusive") => PercentageMode::Exclusive,
            _ => PercentageMode::Coverage,
        };
        Ok(Options {
            filtered: !include.is_empty() || !exclude.is_empty(),
            include,
            exclude,
            ranks,
            sort,
            mode,
        })
    }

    /// Whether a region name passes the patterns (`--include` any, `--exclude` none).
    pub fn keeps(&self, name: &str) -> bool {
        (self.include.is_empty() || self.include.iter().any(|p| p.matches(name)))
            && !self.exclude.iter().any(|p| p.matches(name))
    }

    /// The library's selection for these options.
    pub fn selection<'a>(&'a self, keep: &'a dyn Fn(&str) -> bool) -> Selection<'a> {
        Selection {
            keep,
            filtered: self.filtered,
            ranks: self.ranks.clone(),
        }
    }
}

/// `0 2`, `0-3`, `1,4-6` into a sorted, unique list of ranks.
pub fn parse_ranks(spec: &str) -> Result<Vec<u32>, String> {
    let mut out = Vec::new();
    for part in spec
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|p| !p.is_empty())
    {
        let bad = || format!("{part:?} is not a rank or a range of ranks like 0-3.");
        match part.split_once('-') {
            Some((a, b)) => {
                let a: u32 = a.trim().parse().map_err(|_| bad())?;
                let b: u32 = b.trim().parse().map_err(|_| bad())?;
                if b < a || b - a > MAX_RANGE {
                    return Err(bad());
                }
                out.extend(a..=b);
            }
            None => out.push(part.parse().map_err(|_| bad())?),
        }
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn rank_specs() {
        assert_eq!(parse_ranks("0-3, 7 2"), Ok(vec![0, 1, 2, 3, 7]));
        assert_eq!(parse_ranks(""), Ok(vec![]));
        assert!(parse_ranks("3-1").is_err());
        assert!(parse_ranks("x").unwrap_err().contains("\"x\""));
    }

    #[test]
    fn options_from_a_request() {
        let o = Options::from_request(&json!({
            "include": ["so", ""], "exclude": ["solver_x"], "ranks": "1-2", "sort": "total",
            "mode": "exclusive"
        }))
        .unwrap();
        assert!(o.keeps("solve") && !o.keeps("io") && !o.keeps("solver_x"));
        assert_eq!(o.ranks, Some(vec![1, 2]));
        assert_eq!(
            (o.sort, o.mode),
            (SortKey::Total, PercentageMode::Exclusive)
        );
        let o = Options::from_request(&json!({})).unwrap();
        assert!(o.keeps("anything") && o.ranks.is_none() && !o.filtered);
        assert!(Options::from_request(&json!({"include": ["("]})).is_err());
        assert!(Options::from_request(&json!({"sort": "nope"})).is_err());
    }
}
