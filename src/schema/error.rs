//! Errors of the profile layer: violations of the import rules, and failures of the HDF5
//! layer underneath.

use std::fmt;

use crate::hdf5lite;

/// An error of the profile layer.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// Two inputs hold the same rank (`later` is the input that claimed it second).
    DuplicateRank {
        rank: u32,
        earlier: String,
        later: String,
    },
    /// A rank at or past `MAX_RANKS`, or negative: more ranks than sp reads back.
    RankOutOfRange { rank: i64, origin: String },
    /// A region holds different numbers of start and end times.
    MismatchedCalls {
        region: String,
        starts: usize,
        ends: usize,
    },
    /// `--merge`: a region name occurs in the profile and in the native inputs.
    RegionClash(String),
    /// An HDF5 file that is not a scope-profiler profile.
    NotAProfile(String),
    /// A profile whose schema attribute is invalid or too new.
    Schema(String),
    /// A profile whose content contradicts itself (damaged or truncated).
    Corrupt(String),
    /// Valid content that sp cannot carry over.
    Unsupported(String),
    /// A columnar profile without its event columns (an index-only report's copy): only
    /// what the index holds can be read.
    EventsOmitted,
    /// Writing or reading the HDF5 file failed.
    Hdf5(hdf5lite::Error),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::DuplicateRank {
                rank,
                earlier,
                later,
            } => write!(
                f,
                "{later} and {earlier} both claim rank {rank}; pass the MPI rank to \
                 sp_init() so each rank writes its own"
            ),
            Error::RankOutOfRange { rank, origin } => {
                write!(
                    f,
                    "{origin}: rank {rank} is outside 0..{} (sp reads at most that many ranks)",
                    super::MAX_RANKS
                )
            }
            Error::MismatchedCalls {
                region,
                starts,
                ends,
            } => write!(
                f,
                "region {region:?} has {starts} start times but {ends} end times"
            ),
            Error::RegionClash(name) => write!(
                f,
                "region {name:?} appears in more than one result set; merging them would \
                 double-count it. Give the regions distinct names (a 'fortran:' prefix, say) \
                 before merging."
            ),
            Error::Corrupt(m) => write!(f, "damaged profile: {m}"),
            Error::NotAProfile(m) | Error::Schema(m) | Error::Unsupported(m) => f.write_str(m),
            Error::EventsOmitted => f.write_str(
                "the profile holds its index only: its calls (/events) are not in this file",
            ),
            Error::Hdf5(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Hdf5(e) => Some(e),
            _ => None,
        }
    }
}

impl From<hdf5lite::Error> for Error {
    fn from(e: hdf5lite::Error) -> Self {
        Error::Hdf5(e)
    }
}
