//! Files for the commands: [`sp::io::file`]'s positional files, and the ways the commands
//! open a profile — HDF5, or the reference's JSON profile (`profile.json`, `.json.gz`),
//! told apart by content — with failures naming the file.

use std::path::Path;

use sp::io::ReadAt;
use sp::schema::{json, Depth, EventReader, Profile};

pub use sp::io::file::LocalFile;

/// A profile as stored: an HDF5 file read on demand, or a JSON profile read whole (every
/// call loaded, as the reference reads it).
pub enum ProfileFile {
    H5(Box<sp::hdf5lite::reader::File<LocalFile>>),
    Json(Profile),
}

/// The profile at `path`: a JSON profile when its content starts one
/// ([`json::is_json`]), else an HDF5 file.
pub fn open_profile(path: &Path) -> Result<ProfileFile, super::Failure> {
    let source = LocalFile::open(path).map_err(|e| super::Failure::io(path, "cannot open", e))?;
    let mut head = [0u8; 64];
    let n = usize::try_from(source.len()).map_or(head.len(), |len| len.min(head.len()));
    source
        .read_exact_at(0, &mut head[..n])
        .map_err(|e| super::Failure::io(path, "cannot read", e))?;
    if json::is_json(&head[..n]) {
        let bytes = std::fs::read(path).map_err(|e| super::Failure::io(path, "cannot read", e))?;
        let profile = json::read(&bytes, Depth::Events)
            .map_err(|e| super::Failure::analysis(path, e.into()))?;
        return Ok(ProfileFile::Json(profile));
    }
    sp::hdf5lite::reader::File::open(source)
        .map(|file| ProfileFile::H5(Box::new(file)))
        .map_err(|e| super::Failure::hdf5(path, e))
}

/// The file's stem, the label of a run without `label` metadata.
fn stem(path: &Path) -> Option<String> {
    path.file_stem().map(|s| s.to_string_lossy().into_owned())
}

/// A profile's index, the reader of its events (if it stores them by row), and its label
/// (the `label` metadata, else the file's stem): what the chart commands start from
/// ([`sp::analysis::load::read_labelled`]). A JSON profile has its calls loaded and no
/// reader.
pub fn profile_index<'f>(
    path: &Path,
    file: &'f ProfileFile,
) -> Result<(Profile, Option<EventReader<'f, LocalFile>>, String), super::Failure> {
    match file {
        ProfileFile::H5(h5) => sp::analysis::load::read_labelled(&**h5, stem(path))
            .map_err(|e| super::Failure::analysis(path, e)),
        ProfileFile::Json(profile) => {
            let label = sp::analysis::metadata::label(profile).or_else(|| stem(path));
            Ok((profile.clone(), None, label.unwrap_or_default()))
        }
    }
}
