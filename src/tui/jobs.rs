//! Work that runs beside the interface, so a keypress is answered while it runs: the whole
//! read of a profile, its call tree built from the calls read, the index's rows of a large
//! profile for new options, a region's percentiles from its events, and the timeline's
//! summaries of the ranks on screen. Each job runs on its own thread over the
//! shared file and sends its results back; the event loop collects them between frames.
//! A job that reads calls shares a [`Progress`] with the status line, which shows how far
//! it has got, and Esc cancels it: the library stops within a block of calls with
//! [`Error::Cancelled`](sp::analysis::Error::Cancelled).

use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;

use sp::analysis::events::{Loaded, RowSource};
use sp::analysis::load;
use sp::analysis::progress::Progress;
use sp::analysis::quantiles::{percentiles_to_read, region_percentiles_with, Percentiles};
use sp::analysis::timeline::{RankIndex, Summary, View};
use sp::analysis::Error;
use sp::schema::{EventReader, Profile, Region};

use super::data::Hdf5;
use super::report::{Options, Report};

/// Why a job gave no result.
#[derive(Debug, Clone, PartialEq)]
pub enum Stop {
    /// Esc, or a newer view made it useless.
    Cancelled,
    Failed(String),
}

impl From<Error> for Stop {
    fn from(e: Error) -> Stop {
        match e {
            Error::Cancelled => Stop::Cancelled,
            e => Stop::Failed(e.to_string()),
        }
    }
}

/// A result of a job.
pub enum Done {
    /// The whole read of file `doc`.
    Whole {
        doc: usize,
        profile: Result<Profile, String>,
    },
    /// The report of file `doc` (its call tree, or the index's rows of a large profile),
    /// for the options of recompute number `generation`.
    Report {
        doc: usize,
        generation: u64,
        report: Result<Box<Report>, Stop>,
    },
    /// The percentiles of region `name` on the ranks `ranks` of the first file.
    Percentiles {
        name: String,
        ranks: Option<Vec<u32>>,
        result: Result<Percentiles, Stop>,
    },
    /// A rank of the timeline summarised for `view`, and its index back.
    Lanes {
        index: RankIndex,
        view: View,
        summary: Result<Summary, Stop>,
    },
    /// Job `id` has ended (sent after its other results).
    End { id: u64 },
}

/// What a job does, for the status line and for Esc.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// The whole read of file `doc` for its call tree: not stoppable, and no byte count
    /// (a profile of at most [`TREE_CALLS`](super::data::TREE_CALLS) calls).
    Whole {
        doc: usize,
    },
    /// The call tree of file `doc` built from its calls: its progress counts the
    /// library's walks of the calls, not bytes read.
    Report {
        doc: usize,
    },
    /// The index's rows of file `doc` for new options, while the views show those of the
    /// old ones: its progress counts the rows walked.
    Rows {
        doc: usize,
    },
    Percentiles,
    /// The summaries of `view`, asked for at the window `window` (`None`: fit).
    Timeline {
        view: View,
        window: Option<(f64, f64)>,
    },
}

/// A running job.
pub struct Task {
    pub id: u64,
    pub kind: Kind,
    /// What it does, in a few words for the status line.
    pub what: String,
    pub progress: Arc<Progress>,
}

/// The running jobs and their results.
pub struct Jobs {
    send: Sender<Done>,
    receive: Receiver<Done>,
    /// Jobs started and not yet ended.
    pub tasks: Vec<Task>,
    next: u64,
    /// Results received by [`landed`](Self::landed), for the next [`collect`](Self::collect).
    ready: Vec<Done>,
}

impl Default for Jobs {
    fn default() -> Self {
        let (send, receive) = channel();
        Jobs {
            send,
            receive,
            tasks: Vec::new(),
            next: 0,
            ready: Vec::new(),
        }
    }
}

/// Sends a job's [`Done::End`] however it ends.
struct Ending {
    id: u64,
    send: Sender<Done>,
}

impl Drop for Ending {
    fn drop(&mut self) {
        let _ = self.send.send(Done::End { id: self.id });
    }
}

impl Jobs {
    /// Jobs running.
    pub fn running(&self) -> usize {
        self.tasks.len()
    }

    /// How many jobs have been started so far.
    #[cfg(test)]
    pub fn started(&self) -> u64 {
        self.next
    }

    /// Starts `work` on a thread, giving it the channel for its results.
    pub fn spawn(
        &mut self,
        kind: Kind,
        what: String,
        progress: Arc<Progress>,
        work: impl FnOnce(&Sender<Done>) + Send + 'static,
    ) {
        let id = self.next;
        self.next += 1;
        let ending = Ending {
            id,
            send: self.send.clone(),
        };
        let started = std::thread::Builder::new()
            .name("sp-tui-job".into())
            .spawn(move || {
                let ending = ending;
                work(&ending.send);
            });
        if started.is_ok() {
            self.tasks.push(Task {
                id,
                kind,
                what,
                progress,
            });
        }
    }

    /// Reads the whole of file `doc` (every call) for its call tree.
    pub fn read_whole(&mut self, doc: usize, file: Hdf5) {
        let what = "reading the call tree".to_string();
        self.spawn(Kind::Whole { doc }, what, Arc::default(), move |send| {
            let profile = load::read_full(&*file).map_err(|e| e.to_string());
            let _ = send.send(Done::Whole { doc, profile });
        });
    }

    /// Builds the report of file `doc` from `profile` for `options`, the options of
    /// recompute number `generation`: with its call tree (`tree`, `profile` its calls), or
    /// the index's rows (`profile` its index).
    pub fn report(
        &mut self,
        doc: usize,
        generation: u64,
        (profile, tree): (Arc<Profile>, bool),
        options: Options,
        what: String,
    ) {
        let progress = Arc::new(Progress::default());
        progress.add_total(Report::work(&profile, tree, &options));
        let p = progress.clone();
        let kind = match tree {
            true => Kind::Report { doc },
            false => Kind::Rows { doc },
        };
        self.spawn(kind, what, progress, move |send| {
            let report = Report::build(&profile, tree, &options, &p).map(Box::new);
            let _ = send.send(Done::Report {
                doc,
                generation,
                report,
            });
        });
    }

    /// The percentiles of `region`'s calls on `ranks` (all when `None`), from its events.
    /// A JSON profile (`file` `None`) has the calls loaded in `region`.
    pub fn percentiles(&mut self, file: Option<Hdf5>, region: Region, ranks: Option<Vec<u32>>) {
        let progress = Arc::new(Progress::default());
        progress.add_total(percentiles_to_read(&region, ranks.as_deref()));
        let what = format!("percentiles of {}", region.name);
        let p = progress.clone();
        self.spawn(Kind::Percentiles, what, progress, move |send| {
            let reader = match &file {
                Some(file) => EventReader::open(&**file).map_err(|e| Stop::Failed(e.to_string())),
                None => Ok(None),
            };
            let result = reader.and_then(|reader| {
                region_percentiles_with(reader.as_ref(), &region, ranks.as_deref(), &p)
                    .map_err(Stop::from)
            });
            let _ = send.send(Done::Percentiles {
                name: region.name,
                ranks,
                result,
            });
        });
    }

    /// Summarises each of `ranks` for `view`, in turn, over `profile` (a part of the file's
    /// index holding their rows), sending each back as it is done; a rank asked for after
    /// a cancel comes back at once, cancelled.
    pub fn timeline(
        &mut self,
        file: Option<Hdf5>,
        profile: Profile,
        ranks: Vec<RankIndex>,
        view: View,
        window: Option<(f64, f64)>,
        what: String,
    ) {
        let progress = Arc::new(Progress::default());
        progress.add_total(ranks.iter().map(|r| r.to_read(&profile, &view)).sum());
        let p = progress.clone();
        let kind = Kind::Timeline { view, window };
        self.spawn(kind, what, progress, move |send| {
            let reader = match &file {
                Some(file) => EventReader::open(&**file).map_err(|e| Stop::Failed(e.to_string())),
                None => Ok(None),
            };
            for mut index in ranks {
                let summary = match &reader {
                    Ok(reader) => {
                        let source: &dyn RowSource = match reader {
                            Some(r) => r,
                            None => &Loaded,
                        };
                        let rank = index.rank();
                        (index.summary_with(&profile, source, &view, Some(&p)))
                            .map_err(Stop::from)
                            .map_err(|e| match e {
                                Stop::Failed(e) => Stop::Failed(format!(
                                    "rank {rank}'s calls could not be read: {e}"
                                )),
                                c => c,
                            })
                    }
                    Err(e) => Err(e.clone()),
                };
                let _ = send.send(Done::Lanes {
                    index,
                    view,
                    summary,
                });
            }
        });
    }

    /// Cancels the jobs that can stop (all but the whole reads); whether there were any.
    pub fn cancel(&mut self) -> bool {
        self.cancel_where(|k| !matches!(k, Kind::Whole { .. }))
    }

    /// Cancels the running jobs of the kinds `which` picks; whether there were any.
    pub fn cancel_where(&mut self, which: impl Fn(&Kind) -> bool) -> bool {
        let mut any = false;
        for t in self.tasks.iter().filter(|t| which(&t.kind)) {
            t.progress.cancel();
            any = true;
        }
        any
    }

    /// Whether results have arrived since the last [`collect`](Self::collect), which
    /// they are kept for.
    pub fn landed(&mut self) -> bool {
        self.ready.extend(self.receive.try_iter());
        !self.ready.is_empty()
    }

    /// The results that arrived since the last call (a job's [`Done::End`] removes it
    /// from the running ones).
    pub fn collect(&mut self) -> Vec<Done> {
        let mut done = std::mem::take(&mut self.ready);
        done.extend(self.receive.try_iter());
        for d in &done {
            if let Done::End { id } = d {
                self.tasks.retain(|t| t.id != *id);
            }
        }
        done
    }
}
