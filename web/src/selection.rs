//! The page's table options, as `sp inspect` takes them: include/exclude patterns, rank
//! specs like `0-3,8` (parsed by the library, as `--ranks` is), the sort column and the
//! percentage mode.

use serde_json::Value as Json;
use sp::analysis::report::ReportOptions;
use sp::analysis::{parse_ranks, PercentageMode, RowOptions, Selection, SelectionError, SortKey};

/// Parsed options of one request.
#[derive(Debug)]
pub struct Options {
    pub selection: Selection,
    pub sort: SortKey,
    pub mode: PercentageMode,
}

/// A selection error as the page says it.
fn sentence(e: SelectionError) -> String {
    match e {
        SelectionError::Pattern { pattern, error } => {
            format!("The pattern {pattern:?} is not valid: {error}.")
        }
        SelectionError::Ranks(part) => {
            format!("{part:?} is not a rank or a range of ranks like 0-3.")
        }
        other => format!("{other}."),
    }
}

impl Options {
    /// Reads `include`, `exclude` (lists of patterns), `ranks` (specs separated by spaces
    /// or commas, or null), `sort` and `mode` from a request; a bad pattern or rank spec is
    /// an error sentence.
    pub fn from_request(req: &Json) -> Result<Options, String> {
        let patterns = |key: &str| -> Option<Vec<String>> {
            let list: Vec<String> = req[key]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Json::as_str)
                .map(str::trim)
                .filter(|p| !p.is_empty())
                .map(str::to_owned)
                .collect();
            (!list.is_empty()).then_some(list)
        };
        let ranks = match req["ranks"].as_str().map(str::trim) {
            None | Some("") => None,
            Some(spec) => {
                let specs: Vec<String> = spec.split_whitespace().map(str::to_owned).collect();
                Some(parse_ranks(&specs).map_err(sentence)?)
            }
        };
        let selection = Selection::new(
            patterns("include").as_deref(),
            patterns("exclude").as_deref(),
            ranks,
        )
        .map_err(sentence)?;
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
            selection,
            sort,
            mode,
        })
    }

    /// The selected ranks, if a subset was asked for.
    pub fn ranks(&self) -> Option<&[u32]> {
        self.selection.ranks.as_deref()
    }

    /// How the region rows are computed: the call tree, or one flat row per region.
    pub fn rows(&self, flat: bool) -> RowOptions {
        RowOptions {
            sort: self.sort,
            mode: self.mode,
            flat,
            distribution: true,
        }
    }

    /// The report options `sp inspect` would run with (`--flat` for index rows).
    pub fn report(&self, flat: bool) -> ReportOptions {
        ReportOptions {
            sort: self.sort,
            mode: self.mode,
            flat,
            ..ReportOptions::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn options_from_a_request() {
        let o = Options::from_request(&json!({
            "include": ["so", ""], "exclude": ["solver_x"], "ranks": "1-2 4,6", "sort": "total",
            "mode": "exclusive"
        }))
        .unwrap();
        let sel = &o.selection;
        assert!(sel.keeps("solve") && !sel.keeps("io") && !sel.keeps("solver_x"));
        assert_eq!(o.ranks(), Some(&[1, 2, 4, 6][..]));
        assert_eq!(
            (o.sort, o.mode),
            (SortKey::Total, PercentageMode::Exclusive)
        );
        let o = Options::from_request(&json!({"include": [""]})).unwrap();
        assert!(o.selection.keeps("anything") && o.ranks().is_none() && !o.selection.filtered());
        assert!(Options::from_request(&json!({"include": ["("]}))
            .unwrap_err()
            .starts_with("The pattern \"(\" is not valid: "));
        assert_eq!(
            Options::from_request(&json!({"ranks": "3-1"}))
                .err()
                .unwrap(),
            "\"3-1\" is not a rank or a range of ranks like 0-3."
        );
        assert!(Options::from_request(&json!({"sort": "nope"})).is_err());
    }
}
