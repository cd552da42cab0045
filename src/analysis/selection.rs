//! Which regions and ranks a report or export covers: `--include`/`--exclude` patterns and
//! `--ranks` specs, parsed here so every front end accepts the same spellings.

use crate::sort::SortSlice;
use std::fmt;

use super::pattern::{Pattern, PatternError};

/// Which regions and ranks to summarize or export.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Selection {
    /// Keep only regions whose name matches one of these (`None`: every region).
    pub include: Option<Vec<Pattern>>,
    /// Skip regions whose name matches one of these.
    pub exclude: Option<Vec<Pattern>>,
    /// Ranks to pool, ascending and unique; `None` for all.
    pub ranks: Option<Vec<u32>>,
}

impl Selection {
    /// Every region, every rank.
    pub fn all() -> Selection {
        Selection::default()
    }

    /// Every region of `ranks`.
    pub fn ranks(ranks: Option<Vec<u32>>) -> Selection {
        Selection {
            ranks,
            ..Selection::default()
        }
    }

    /// Compiles `include` and `exclude` patterns (Python `re.match` semantics).
    pub fn new(
        include: Option<&[String]>,
        exclude: Option<&[String]>,
        ranks: Option<Vec<u32>>,
    ) -> Result<Selection, SelectionError> {
        let compile = |patterns: Option<&[String]>| {
            patterns
                .map(|list| {
                    list.iter()
                        .map(|p| {
                            Pattern::new(p).map_err(|error| SelectionError::Pattern {
                                pattern: p.clone(),
                                error,
                            })
                        })
                        .collect::<Result<Vec<_>, _>>()
                })
                .transpose()
        };
        Ok(Selection {
            include: compile(include)?,
            exclude: compile(exclude)?,
            ranks,
        })
    }

    /// Whether the region named `name` is kept.
    pub fn keeps(&self, name: &str) -> bool {
        self.include
            .as_ref()
            .is_none_or(|ps| ps.iter().any(|p| p.matches(name)))
            && !self
                .exclude
                .as_ref()
                .is_some_and(|ps| ps.iter().any(|p| p.matches(name)))
    }

    /// Whether any include/exclude pattern was given.
    pub fn filtered(&self) -> bool {
        self.include.is_some() || self.exclude.is_some()
    }
}

/// A selection that does not parse.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SelectionError {
    /// An `--include`/`--exclude` pattern outside the supported regex syntax.
    Pattern {
        pattern: String,
        error: PatternError,
    },
    /// A `--ranks` spec that is not a rank or a range.
    Ranks(String),
}

impl fmt::Display for SelectionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SelectionError::Pattern { pattern, error } => write!(f, "pattern {pattern:?}: {error}"),
            SelectionError::Ranks(part) => {
                write!(f, "--ranks: {part:?} is not a rank or a range like 0-3")
            }
        }
    }
}

impl std::error::Error for SelectionError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SelectionError::Pattern { error, .. } => Some(error),
            SelectionError::Ranks(_) => None,
        }
    }
}

/// Parses `0 2` / `0-3` / `0,2` rank specs into a sorted, unique list.
pub fn parse_ranks(specs: &[String]) -> Result<Vec<u32>, SelectionError> {
    let mut out = Vec::new();
    for spec in specs {
        for part in spec.split(',').filter(|p| !p.is_empty()) {
            let bad = || SelectionError::Ranks(part.to_owned());
            match part.split_once('-') {
                Some((a, b)) => {
                    let a: u32 = a.trim().parse().map_err(|_| bad())?;
                    let b: u32 = b.trim().parse().map_err(|_| bad())?;
                    if b < a || b - a > 1_000_000 {
                        return Err(bad());
                    }
                    out.extend(a..=b);
                }
                None => out.push(part.trim().parse().map_err(|_| bad())?),
            }
        }
    }
    out.sort_ord_unstable();
    out.dedup();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn specs(s: &[&str]) -> Vec<String> {
        s.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn rank_specs() {
        assert_eq!(
            parse_ranks(&specs(&["3", "0-2", "1,5"])),
            Ok(vec![0, 1, 2, 3, 5])
        );
        assert_eq!(
            parse_ranks(&specs(&["3-1"])).unwrap_err().to_string(),
            "--ranks: \"3-1\" is not a rank or a range like 0-3"
        );
        assert!(parse_ranks(&specs(&["x"])).is_err());
    }

    #[test]
    fn patterns_include_then_exclude() {
        let sel =
            Selection::new(Some(&specs(&["s.*", "A"])), Some(&specs(&[".*x"])), None).unwrap();
        assert!(sel.filtered());
        assert!(sel.keeps("solve") && sel.keeps("Alpha"));
        assert!(!sel.keeps("sx") && !sel.keeps("io"));
        assert!(Selection::all().keeps("anything") && !Selection::all().filtered());
        let err = Selection::new(Some(&specs(&["("])), None, None).unwrap_err();
        assert!(err.to_string().starts_with("pattern \"(\": "), "{err}");
    }
}
