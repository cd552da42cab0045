//! A stored profile told apart by its content: an HDF5 file, read on demand, or the
//! reference's JSON profile (`profile.json`, `.json.gz`), read whole as the reference reads
//! it. Every front end opens a profile through [`StoredProfile::open`], so each command takes
//! both kinds and gives the same output for the `.h5` and the JSON exported from it.

use std::fmt;
use std::io;

use crate::hdf5lite::{self, reader::File};
use crate::io::ReadAt;
use crate::schema::{json, Depth, EventReader, Profile};

use super::compare::Metric;
use super::error::{Error, Result};
use super::export::Exporter;
use super::report::compute::{file_rows, profile_rows, FileRows, Runner};
use super::report::{Format, Reading, ReportOptions};
use super::runs::{self, Run};
use super::{load, metadata, Selection};

/// A profile as stored.
pub enum StoredProfile<R: ReadAt> {
    /// An HDF5 file, read on demand.
    H5(Box<File<R>>),
    /// A JSON profile, read whole: every call loaded.
    Json(Profile),
}

/// Why a source is not a profile the readers can open.
#[derive(Debug)]
pub enum OpenError {
    /// The source could not be read.
    Io(io::Error),
    /// Not an HDF5 file the reader can open.
    Hdf5(hdf5lite::Error),
    /// A JSON document that is not a profile.
    Json(Error),
}

impl fmt::Display for OpenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OpenError::Io(e) => write!(f, "cannot read: {e}"),
            OpenError::Hdf5(e) => e.fmt(f),
            OpenError::Json(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for OpenError {}

impl<R: ReadAt> StoredProfile<R> {
    /// Opens `source`: a JSON profile when its content starts one ([`json::is_json`]), else
    /// an HDF5 file.
    pub fn open(source: R) -> std::result::Result<Self, OpenError> {
        let mut head = [0u8; 64];
        let n = usize::try_from(source.len()).map_or(head.len(), |len| len.min(head.len()));
        source
            .read_exact_at(0, &mut head[..n])
            .map_err(OpenError::Io)?;
        if !json::is_json(&head[..n]) {
            return File::open(source)
                .map(|file| StoredProfile::H5(Box::new(file)))
                .map_err(OpenError::Hdf5);
        }
        // The reference parses the document whole; the source's own length bounds the buffer.
        let len = usize::try_from(source.len())
            .map_err(|_| OpenError::Io(io::Error::other("too large to read whole")))?;
        let mut bytes = vec![0u8; len];
        source.read_exact_at(0, &mut bytes).map_err(OpenError::Io)?;
        let profile = json::read(&bytes, Depth::Events).map_err(|e| OpenError::Json(e.into()))?;
        Ok(StoredProfile::Json(profile))
    }

    /// The profile's index, the reader of its events (if it stores them by row), and its
    /// label (the `label` metadata, else `fallback`, the file's stem): what the chart
    /// commands start from ([`load::read_labelled`]). A JSON profile has its calls loaded
    /// and no reader.
    pub fn index(
        &self,
        fallback: Option<String>,
    ) -> Result<(Profile, Option<EventReader<'_, R>>, String)> {
        match self {
            StoredProfile::H5(h5) => load::read_labelled(&**h5, fallback),
            StoredProfile::Json(profile) => {
                let label = metadata::label(profile).or(fallback);
                Ok((profile.clone(), None, label.unwrap_or_default()))
            }
        }
    }
}

impl<R: ReadAt> StoredProfile<R> {
    /// The profile read as `reading` says (a JSON profile is read whole already).
    pub fn into_profile(self, reading: Reading) -> Result<Profile> {
        match self {
            StoredProfile::H5(file) => reading.read(&*file),
            StoredProfile::Json(profile) => Ok(profile),
        }
    }

    /// The profile as one run of many, named `name` ([`runs::read`], [`Run::of`]).
    pub fn run(&self, name: &str, selection: &Selection, metric: Metric) -> Result<Run> {
        match self {
            StoredProfile::H5(file) => runs::read(name, &**file, selection, metric),
            StoredProfile::Json(profile) => Ok(Run::of(name, profile, selection)),
        }
    }
}

impl<R: ReadAt + Sync> StoredProfile<R> {
    /// The rows `sp inspect` reports for `options` ([`file_rows`], [`profile_rows`]).
    pub fn into_rows(
        self,
        options: &ReportOptions,
        format: Format,
        selection: &Selection,
        runner: &impl Runner,
    ) -> Result<FileRows> {
        match self {
            StoredProfile::H5(file) => file_rows(&*file, options, format, selection, runner),
            StoredProfile::Json(profile) => Ok(profile_rows(profile, options, selection)),
        }
    }

    /// The exporter of the profile's calls ([`Exporter::open`], [`Exporter::of_profile`]).
    pub fn exporter(&self, fallback_label: &str) -> Result<Exporter<'_, R>> {
        match self {
            StoredProfile::H5(file) => Exporter::open(&**file, fallback_label),
            StoredProfile::Json(profile) => {
                Ok(Exporter::of_profile(profile.clone(), fallback_label))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_is_told_from_hdf5_by_content() {
        let doc = br#" {"format": "scope-profiler-profile", "format_version": 1, "num_ranks": 1,
          "metadata": {"label": "run"}, "regions": [{"name": "main", "rank": 0,
          "start_times_ns": [10], "end_times_ns": [25]}]}"#;
        match StoredProfile::open(doc.to_vec()) {
            Ok(StoredProfile::Json(p)) => {
                let stored = StoredProfile::<Vec<u8>>::Json(p);
                let (index, reader, label) = stored.index(Some("stem".into())).unwrap();
                assert_eq!((index.regions.len(), reader.is_none()), (1, true));
                assert_eq!(label, "run");
            }
            Ok(StoredProfile::H5(_)) => panic!("read as HDF5"),
            Err(e) => panic!("{e}"),
        }
        let not_hdf5 = b"neither json nor hdf5".to_vec();
        assert!(matches!(
            StoredProfile::open(not_hdf5),
            Err(OpenError::Hdf5(_))
        ));
        let not_a_profile = b"{\"x\": 1}".to_vec();
        assert!(matches!(
            StoredProfile::open(not_a_profile),
            Err(OpenError::Json(_))
        ));
    }
}
