//! Files for the commands: [`sp::io::file`]'s positional files, and a profile opened by its
//! content ([`StoredProfile`]), with failures naming the file.

use std::path::Path;

use sp::analysis::stored::StoredProfile;
use sp::schema::{EventReader, Profile};

pub use sp::io::file::LocalFile;

/// A profile file as stored: HDF5 read on demand, or a JSON profile read whole.
pub type ProfileFile = StoredProfile<LocalFile>;

/// The profile at `path`, HDF5 or JSON by its content.
pub fn open_profile(path: &Path) -> Result<ProfileFile, super::Failure> {
    let source = LocalFile::open(path).map_err(|e| super::Failure::io(path, "cannot open", e))?;
    StoredProfile::open(source).map_err(|e| super::Failure::stored(path, e))
}

/// A profile's index, its event reader and its label (the file's stem without `label`
/// metadata): [`StoredProfile::index`].
pub fn profile_index<'f>(
    path: &Path,
    file: &'f ProfileFile,
) -> Result<(Profile, Option<EventReader<'f, LocalFile>>, String), super::Failure> {
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned());
    file.index(stem)
        .map_err(|e| super::Failure::analysis(path, e))
}
