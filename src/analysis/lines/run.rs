//! `sp lines` on files: each `.sps` read and checked, its modules found and symbolized
//! once for the whole run (a module shared by 1,000 ranks is read once, each distinct
//! address looked up once), and its samples counted. Memory grows with the distinct
//! addresses and lines, not with the samples.

use std::collections::HashMap;
use std::path::Path;

use super::{count_rank, LineId, Rank, Report};
use crate::analysis::pattern::Pattern;
use crate::symbolize::{Frame, Options, PlaceId, Symbolizer};

/// What to read and how.
#[derive(Debug, Clone, Default)]
pub struct Request {
    /// Only regions whose name matches (`--region`).
    pub region: Option<Pattern>,
    /// Only these ranks (`--ranks`).
    pub ranks: Option<Vec<u32>>,
    /// A line is its whole inlined chain, not only the innermost frame (`--inlines`).
    pub inlines: bool,
    /// Where else to look for modules and debug files.
    pub symbolize: Options,
}

/// A `.sps` file that could not be read: its path and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Damaged {
    pub path: String,
    pub message: String,
}

impl std::fmt::Display for Damaged {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

/// Counts the samples of many files into one report.
pub struct Lines {
    request: Request,
    symbolizer: Symbolizer,
    /// Place → line.
    line_of_place: HashMap<PlaceId, LineId>,
    line_ids: HashMap<Vec<Frame>, LineId>,
    report: Report,
}

impl Lines {
    pub fn new(request: Request) -> Lines {
        let symbolizer = Symbolizer::new(request.symbolize.clone());
        Lines {
            request,
            symbolizer,
            line_of_place: HashMap::new(),
            line_ids: HashMap::new(),
            report: Report::default(),
        }
    }

    /// Reads and counts one file (`shown` is how it is named in the output). A damaged
    /// file changes nothing and is the error.
    pub fn add_file(&mut self, path: &Path, shown: &str) -> Result<(), Damaged> {
        let damaged = |message: String| Damaged {
            path: shown.to_owned(),
            message,
        };
        let bytes = std::fs::read(path).map_err(|e| damaged(format!("cannot read: {e}")))?;
        let view = crate::samples::parse(&bytes).map_err(|e| damaged(e.to_string()))?;
        if let Some(ranks) = &self.request.ranks {
            if !u32::try_from(view.rank).is_ok_and(|r| ranks.binary_search(&r).is_ok()) {
                return Ok(());
            }
        }
        let dir = path
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let modules: Vec<(Option<usize>, u64)> = view
            .modules
            .iter()
            .map(|m| (self.symbolizer.module(&m.path, dir), m.base))
            .collect();
        let region = self.request.region.clone();
        let keep = |name: &str| region.as_ref().is_none_or(|p| p.matches(name));
        let regions = count_rank(&view, keep, |module, address| {
            let (id, base) = usize::try_from(module)
                .ok()
                .and_then(|m| modules.get(m).copied())
                .unwrap_or((None, 0));
            let place = self.symbolizer.place(id, address, base);
            if let Some(&line) = self.line_of_place.get(&place) {
                return line;
            }
            let frames = &self.symbolizer.places()[place as usize].frames;
            let key: Vec<Frame> = if self.request.inlines {
                frames.clone()
            } else {
                frames.iter().take(1).cloned().collect()
            };
            let next = LineId::try_from(self.report.lines.len()).unwrap_or(LineId::MAX);
            let line = *self.line_ids.entry(key.clone()).or_insert_with(|| {
                self.report.lines.push(key);
                next
            });
            self.line_of_place.insert(place, line);
            line
        });
        self.report.ranks.push(Rank {
            path: shown.to_owned(),
            rank: view.rank,
            hz: view.hz,
            regions,
        });
        Ok(())
    }

    /// Reads and counts `files` in order. A damaged file is the error, or with
    /// `keep_going` is returned with the others and the rest are read.
    pub fn add_files(
        &mut self,
        files: &[crate::paths::InputPath],
        keep_going: bool,
    ) -> Result<Vec<Damaged>, Damaged> {
        let mut damaged = Vec::new();
        for file in files {
            match self.add_file(file.as_path(), file.as_str()) {
                Ok(()) => {}
                Err(e) if keep_going => damaged.push(e),
                Err(e) => return Err(e),
            }
        }
        Ok(damaged)
    }

    /// What the symbolizer had to say (once per module).
    pub fn warnings(&self) -> &[String] {
        self.symbolizer.warnings()
    }

    /// The report of every file added.
    pub fn finish(self) -> Report {
        self.report
    }
}
