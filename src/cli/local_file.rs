//! Files for the commands: [`sp::io::file`]'s positional files, and the two ways the chart
//! and report commands open a profile, with failures naming the file.

use std::path::Path;

pub use sp::io::file::LocalFile;

/// An HDF5 file opened for reading, named in the failure if it cannot be.
pub fn open_h5(path: &Path) -> Result<sp::hdf5lite::reader::File<LocalFile>, super::Failure> {
    let source = LocalFile::open(path).map_err(|e| super::Failure::io(path, "cannot open", e))?;
    sp::hdf5lite::reader::File::open(source).map_err(|e| super::Failure::hdf5(path, e))
}

/// A profile's index, the reader of its events (if it stores them by row), and its label
/// (the `label` metadata, else the file's stem): what the chart commands start from
/// ([`sp::analysis::load::read_labelled`]).
pub fn profile_index<'f>(
    path: &Path,
    h5: &'f sp::hdf5lite::reader::File<LocalFile>,
) -> Result<
    (
        sp::schema::Profile,
        Option<sp::schema::EventReader<'f, LocalFile>>,
        String,
    ),
    super::Failure,
> {
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned());
    sp::analysis::load::read_labelled(h5, stem).map_err(|e| super::Failure::analysis(path, e))
}
