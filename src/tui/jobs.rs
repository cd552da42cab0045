//! Work that runs beside the interface, so a keypress is answered while it runs: the whole
//! read of a profile (its call tree) and a region's percentiles from its events. Each job
//! runs on its own thread over the shared file and sends its result back; the event loop
//! collects the results between frames, and a spinner shows while any job runs.

use std::sync::mpsc::{channel, Receiver, Sender};

use sp::analysis::load;
use sp::analysis::quantiles::{region_percentiles, Percentiles};
use sp::schema::{EventReader, Profile, Region};

use super::data::Hdf5;

/// A finished job.
pub enum Done {
    /// The whole read of file `doc`.
    Whole {
        doc: usize,
        profile: Result<Profile, String>,
    },
    /// The percentiles of region `name` on the ranks `ranks` of the first file.
    Percentiles {
        name: String,
        ranks: Option<Vec<u32>>,
        result: Result<Percentiles, String>,
    },
}

/// The running jobs and their results.
pub struct Jobs {
    send: Sender<Done>,
    receive: Receiver<Done>,
    /// Jobs started and not yet collected.
    pub running: usize,
}

impl Default for Jobs {
    fn default() -> Self {
        let (send, receive) = channel();
        Jobs {
            send,
            receive,
            running: 0,
        }
    }
}

impl Jobs {
    fn spawn(&mut self, work: impl FnOnce() -> Done + Send + 'static) {
        let send = self.send.clone();
        self.running += 1;
        let started = std::thread::Builder::new()
            .name("sp-tui-job".into())
            .spawn(move || {
                let _ = send.send(work());
            });
        if started.is_err() {
            self.running -= 1;
        }
    }

    /// Reads the whole of file `doc` (every call) for its call tree.
    pub fn read_whole(&mut self, doc: usize, file: Hdf5) {
        self.spawn(move || Done::Whole {
            doc,
            profile: load::read_full(&*file).map_err(|e| e.to_string()),
        });
    }

    /// The percentiles of `region`'s calls on `ranks` (all when `None`), from its events.
    /// A JSON profile (`file` `None`) has the calls loaded in `region`.
    pub fn percentiles(&mut self, file: Option<Hdf5>, region: Region, ranks: Option<Vec<u32>>) {
        self.spawn(move || {
            let reader = match &file {
                Some(file) => EventReader::open(&**file).map_err(|e| e.to_string()),
                None => Ok(None),
            };
            let result = reader.and_then(|reader| {
                region_percentiles(reader.as_ref(), &region, ranks.as_deref())
                    .map_err(|e| e.to_string())
            });
            Done::Percentiles {
                name: region.name,
                ranks,
                result,
            }
        });
    }

    /// The results that arrived since the last call.
    pub fn collect(&mut self) -> Vec<Done> {
        let done: Vec<Done> = self.receive.try_iter().collect();
        self.running = self.running.saturating_sub(done.len());
        done
    }
}
