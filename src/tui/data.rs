//! The files `sp tui` shows, opened the way the browser page opens them: the index first
//! (metadata, region names, one row of stored statistics per (rank, region)), so the first
//! screen of a 1 GB profile needs a few hundred kilobytes; the whole profile (the call
//! tree) later, in the background, when it has at most [`TREE_CALLS`] calls. Any other HDF5
//! file opens for its tree only. The reads are counted, for the status line and the bench.

use std::io;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use sp::analysis::load;
use sp::analysis::stored::StoredProfile;
use sp::hdf5lite::reader::{File, Group};
use sp::io::ReadAt;
use sp::schema::{self, Profile, ProfileLayout};

use crate::failure::Failure;
use sp::io::file::LocalFile;

/// Profiles with at most this many calls are read whole for their call tree (as the page).
pub const TREE_CALLS: u64 = 1 << 20;
/// Schema 1 profiles have no index: they are read whole, up to this size.
pub const LEGACY_BYTES: u64 = 256 << 20;

/// A local file whose reads are counted.
pub struct Counted {
    file: LocalFile,
    bytes: Arc<AtomicU64>,
}

impl ReadAt for Counted {
    fn len(&self) -> u64 {
        self.file.len()
    }

    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        self.bytes.fetch_add(buf.len() as u64, Ordering::Relaxed);
        self.file.read_exact_at(offset, buf)
    }
}

/// An open HDF5 file, shared with the background work.
pub type Hdf5 = Arc<File<Counted>>;

/// One file given on the command line.
pub struct Doc {
    /// The path as given.
    pub name: String,
    pub size: u64,
    /// The HDF5 file; `None` for a JSON profile, which is read whole when opened.
    pub file: Option<Hdf5>,
    read: Arc<AtomicU64>,
    /// The file's index read (or whole read, for a file without an index); `None` for an
    /// HDF5 file that is not a profile. Shared with the job that recomputes its rows for
    /// new options, which at 100,000 ranks walks a million rows.
    pub head: Option<Arc<Profile>>,
    /// The whole read, once done (shared with the job that builds its call tree).
    pub whole: Option<Arc<Profile>>,
    /// Calls the profile holds.
    pub calls: u64,
}

impl Doc {
    /// Opens `path` and reads what the first screen needs; a file that is not HDF5 or a
    /// profile that cannot be read is a failure naming it.
    pub fn open(path: &Path) -> Result<Doc, Failure> {
        let name = path.display().to_string();
        let local = LocalFile::open(path).map_err(|e| Failure::io(path, "cannot open", e))?;
        let size = local.len();
        let read = Arc::new(AtomicU64::new(0));
        let counted = Counted {
            file: local,
            bytes: read.clone(),
        };
        let file = match StoredProfile::open(counted).map_err(|e| Failure::stored(path, e))? {
            StoredProfile::H5(file) => Arc::new(*file),
            // A JSON profile (the reference's `export json`, plain or gzip) is read whole,
            // with every call, as the reference reads it.
            StoredProfile::Json(profile) => {
                read.store(size, Ordering::Relaxed);
                let profile = Arc::new(profile);
                return Ok(Doc {
                    name,
                    size,
                    file: None,
                    read,
                    calls: profile.call_count(),
                    head: Some(profile.clone()),
                    whole: Some(profile),
                });
            }
        };
        let root = file.root().map_err(|e| Failure::hdf5(path, e))?;
        let mut doc = Doc {
            name,
            size,
            file: Some(file.clone()),
            read,
            head: None,
            whole: None,
            calls: 0,
        };
        if is_profile(&root).map_err(|e| Failure::hdf5(path, e))? {
            let (head, whole) = read_head(&file, size).map_err(|e| Failure::analysis(path, e))?;
            doc.calls = whole.as_ref().unwrap_or(&head).call_count();
            doc.head = Some(head);
            doc.whole = whole;
        }
        Ok(doc)
    }

    /// Bytes read from the file so far.
    pub fn bytes_read(&self) -> u64 {
        self.read.load(Ordering::Relaxed)
    }

    /// The whole read when done, else the index: the profile rows come from.
    pub fn profile(&self) -> Option<&Profile> {
        self.whole.as_deref().or(self.head.as_deref())
    }

    /// Whether the whole profile should be read in the background for its call tree.
    pub fn wants_tree(&self) -> bool {
        self.head.is_some() && self.whole.is_none() && self.calls <= TREE_CALLS
    }
}

/// Whether an HDF5 file is a scope-profiler profile: the schema attribute (schema 2, 3) or
/// rank groups (schema 1).
fn is_profile<R: ReadAt>(root: &Group<'_, R>) -> sp::hdf5lite::Result<bool> {
    if root.attribute(schema::names::SCHEMA_VERSION)?.is_some() {
        return Ok(true);
    }
    Ok(!schema::read::rank_groups(&root.links()?).is_empty())
}

/// The index, and the whole profile when there is no cheaper read (schema 1, aggregate);
/// a profile read whole is its own index.
fn read_head<R: ReadAt>(
    file: &File<R>,
    size: u64,
) -> sp::analysis::Result<(Arc<Profile>, Option<Arc<Profile>>)> {
    let head = load::read_metadata(file)?;
    let both = |whole: Profile| {
        let whole = Arc::new(whole);
        (whole.clone(), Some(whole))
    };
    match head.layout {
        ProfileLayout::Legacy if size > LEGACY_BYTES => Ok((Arc::new(head), None)),
        ProfileLayout::Legacy => Ok(both(load::read_full(file)?)),
        ProfileLayout::Aggregate => {
            let whole = Arc::new(load::read_full(file)?);
            let index = match load::read_summary(file) {
                Ok(index) => Arc::new(index),
                Err(_) => whole.clone(),
            };
            Ok((index, Some(whole)))
        }
        ProfileLayout::Columnar if head.summary_statistics => {
            // The index with its stored statistics (what `read_summary` reads, whose
            // check of the layout `head` has made: not a third read of the metadata).
            Ok((Arc::new(schema::read(file, schema::Depth::Index)?), None))
        }
        ProfileLayout::Columnar => {
            let spans = schema::read(file, schema::Depth::Index)?;
            if spans.call_count() <= TREE_CALLS {
                Ok(both(load::read_full(file)?))
            } else {
                Ok((Arc::new(load::read_from_events(file)?), None))
            }
        }
    }
}
