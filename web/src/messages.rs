//! What went wrong, in one sentence that names the file: the page shows these instead of a
//! blank screen. Each library error kind maps to what a person can do about it.

use std::error::Error as _;

use sp::analysis;
use sp::hdf5lite::{self, ErrorKind};
use sp::schema;

/// Why an HDF5 read failed.
pub fn hdf5(name: &str, e: &hdf5lite::Error) -> String {
    // A read past the end: the io error itself, or its message (`sp::io::past_end`) kept by
    // a layer that rewrapped it.
    let truncated = e
        .source()
        .and_then(|s| s.downcast_ref::<std::io::Error>())
        .is_some_and(|io| io.kind() == std::io::ErrorKind::UnexpectedEof)
        || e.message().contains("passes the end of the file");
    let detail = e.to_string();
    if truncated {
        return format!("{name} is truncated: {detail}.");
    }
    match e.kind() {
        ErrorKind::Format if e.message().contains("no HDF5 signature") => {
            format!("{name} is not an HDF5 file: it has no HDF5 signature.")
        }
        ErrorKind::Format | ErrorKind::Checksum => format!("{name} is damaged: {detail}."),
        ErrorKind::Unsupported => {
            format!("{name} uses an HDF5 feature this page cannot read: {detail}.")
        }
        ErrorKind::LimitsExceeded => {
            format!("{name} asks for more than this page allows: {detail}.")
        }
        ErrorKind::Io => format!("{name} could not be read: {detail}."),
        ErrorKind::Usage => format!("{name} is not a profile this page can read: {detail}."),
        _ => format!("{name} could not be read: {detail}."),
    }
}

/// Why a profile read failed.
pub fn profile(name: &str, e: &analysis::Error) -> String {
    match e {
        analysis::Error::Profile(p) => schema_error(name, p),
        analysis::Error::Corrupt(m) => format!("{name} is a damaged profile: {m}."),
        analysis::Error::NoSummary => {
            format!("{name} stores no summary statistics, which this view needs.")
        }
        analysis::Error::Write(e) => format!("{name}: writing failed: {e}."),
        other => format!("{name}: {other}."),
    }
}

/// Why the profile layer refused a file.
pub fn schema_error(name: &str, e: &schema::Error) -> String {
    match e {
        schema::Error::Hdf5(h) => hdf5(name, h),
        schema::Error::NotAProfile(m) => format!("{name} is an HDF5 file but {m}."),
        schema::Error::Schema(m) => format!("{name} is a profile this page cannot read: {m}."),
        schema::Error::Corrupt(m) => format!("{name} is a damaged profile: {m}."),
        schema::Error::Unsupported(m) => {
            format!("{name} holds something this page cannot read: {m}.")
        }
        other => format!("{name}: {other}."),
    }
}

/// A schema-1 profile too large to read whole.
pub fn legacy_too_large(name: &str, size: u64, limit: u64) -> String {
    format!(
        "{name} is a schema-1 profile of {}, which has no index: the page reads such files \
         whole, up to {}.",
        sp::analysis::units::bytes_text(size),
        sp::analysis::units::bytes_text(limit)
    )
}

/// The notice for an HDF5 file that is not a profile, above its raw view when there is one.
pub fn not_a_profile(name: &str, raw_view: bool) -> String {
    format!(
        "{name} is an HDF5 file but not a scope-profiler profile (it has no \
         scope_profiler_schema attribute and no rank groups){}",
        if raw_view {
            "; showing its HDF5 tree."
        } else {
            "."
        }
    )
}

/// A native trace dropped where a profile was expected.
pub fn native_trace(name: &str) -> String {
    format!(
        "{name} is a scope-profiler native trace, not a profile: give it a .spt name and drop \
         it (with the run's other traces) to merge them into a profile."
    )
}
