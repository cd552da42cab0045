//! Writing traces, for tests, samples and benchmarks: [`encode`] for a whole in-memory
//! [`Trace`], and [`TraceWriter`] to stream arbitrarily large traces region by region.
//!
//! Writers are permissive on purpose: negative ranks, duplicate names and names with NUL
//! bytes are written as given, so tests can produce the files the reader must reject.

use std::io::{self, Write};

use super::header::{encode_header, Endian, Header, Version, HEADER_LEN};
use super::model::{Region, Trace};
use super::region::{encode_region_head, EncodeError};
use super::timestamps::encode_timestamps;

/// Encodes `trace` as a complete file. Version 1 drops the source locations; an empty
/// source file or a negative line is stored as "unknown".
///
/// # Panics
///
/// If a region's `starts` and `ends` differ in length, or a string is longer than
/// `i32::MAX` bytes (see [`try_encode`]). A trace read from a file never does.
pub fn encode(trace: &Trace, version: Version, endian: Endian) -> Vec<u8> {
    match try_encode(trace, version, endian) {
        Ok(bytes) => bytes,
        Err(e) => panic!("cannot encode trace: {e}"),
    }
}

/// Encodes `trace`, or says why it cannot be stored.
pub fn try_encode(trace: &Trace, version: Version, endian: Endian) -> Result<Vec<u8>, EncodeError> {
    let region_count = trace.regions.len() as u64;
    let header = Header {
        version,
        endian,
        rank: trace.rank,
        region_count: i64::try_from(region_count)
            .map_err(|_| EncodeError::TooManyRegions(region_count))?,
    };
    let mut out = Vec::with_capacity(encoded_len(trace, version));
    encode_header(&mut out, &header);
    for region in &trace.regions {
        let calls = checked_calls(region)?;
        encode_region_head(
            &mut out,
            version,
            endian,
            &region.name,
            region.source_file.as_deref(),
            region.source_line,
            calls,
        )?;
        encode_timestamps(&mut out, &region.starts, endian);
        encode_timestamps(&mut out, &region.ends, endian);
    }
    Ok(out)
}

/// The size of the encoded file (saturating; only a capacity hint).
fn encoded_len(trace: &Trace, version: Version) -> usize {
    trace.regions.iter().fold(HEADER_LEN, |acc, r| {
        let source = if version.has_source() {
            r.source_file.as_deref().map_or(0, str::len)
        } else {
            0
        };
        acc.saturating_add(version.min_record_len())
            .saturating_add(r.name.len())
            .saturating_add(source)
            .saturating_add(r.starts.len().saturating_mul(16))
    })
}

fn checked_calls(region: &Region) -> Result<u64, EncodeError> {
    if region.starts.len() != region.ends.len() {
        return Err(EncodeError::CallCountMismatch {
            starts: region.starts.len(),
            ends: region.ends.len(),
        });
    }
    Ok(region.starts.len() as u64)
}

fn invalid(e: EncodeError) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, e)
}

/// Values per `write_all` when streaming timestamps.
const CHUNK: usize = 8192;

/// Streams a trace: the header first, then for each region its head, all starts, then all
/// ends, each in as many slices as convenient. Nothing is held beyond one chunk, so
/// benchmark traces of any size can be produced.
///
/// ```
/// use sp::trace::{parse, Endian, TraceWriter, Version};
///
/// let mut w = TraceWriter::new(Vec::new(), Version::V2, Endian::Big, 3, 1)?;
/// w.begin_region("solve", Some("solver.c"), Some(42), 2)?;
/// w.write_starts(&[10])?;
/// w.write_starts(&[20])?;
/// w.write_ends(&[15, 33])?;
/// let bytes = w.finish()?;
/// let view = parse(&bytes).unwrap();
/// assert_eq!(view.rank, 3);
/// assert_eq!(view.regions[0].ends.to_vec(), [15, 33]);
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug)]
pub struct TraceWriter<W: Write> {
    out: W,
    version: Version,
    endian: Endian,
    regions_left: u64,
    starts_left: u64,
    ends_left: u64,
    buf: Vec<u8>,
}

impl<W: Write> TraceWriter<W> {
    /// Writes the header of a trace that will hold `region_count` regions.
    pub fn new(
        mut out: W,
        version: Version,
        endian: Endian,
        rank: i32,
        region_count: u64,
    ) -> io::Result<Self> {
        let header = Header {
            version,
            endian,
            rank,
            region_count: i64::try_from(region_count)
                .map_err(|_| invalid(EncodeError::TooManyRegions(region_count)))?,
        };
        let mut buf = Vec::with_capacity(HEADER_LEN);
        encode_header(&mut buf, &header);
        out.write_all(&buf)?;
        Ok(TraceWriter {
            out,
            version,
            endian,
            regions_left: region_count,
            starts_left: 0,
            ends_left: 0,
            buf,
        })
    }

    /// Starts the next region, which will have `calls` calls.
    pub fn begin_region(
        &mut self,
        name: &str,
        source_file: Option<&str>,
        source_line: Option<i32>,
        calls: u64,
    ) -> io::Result<()> {
        if self.starts_left > 0 || self.ends_left > 0 {
            return Err(invalid(EncodeError::Sequence(
                "the previous region is missing timestamps",
            )));
        }
        if self.regions_left == 0 {
            return Err(invalid(EncodeError::Sequence(
                "more regions than the header announced",
            )));
        }
        self.buf.clear();
        encode_region_head(
            &mut self.buf,
            self.version,
            self.endian,
            name,
            source_file,
            source_line,
            calls,
        )
        .map_err(invalid)?;
        self.out.write_all(&self.buf)?;
        self.regions_left -= 1;
        self.starts_left = calls;
        self.ends_left = calls;
        Ok(())
    }

    /// Writes the next start times of the current region.
    pub fn write_starts(&mut self, values: &[i64]) -> io::Result<()> {
        if values.len() as u64 > self.starts_left {
            return Err(invalid(EncodeError::Sequence(
                "more starts than the region's call count",
            )));
        }
        self.put(values)?;
        self.starts_left -= values.len() as u64;
        Ok(())
    }

    /// Writes the next end times of the current region, after all its starts.
    pub fn write_ends(&mut self, values: &[i64]) -> io::Result<()> {
        if self.starts_left > 0 && !values.is_empty() {
            return Err(invalid(EncodeError::Sequence(
                "ends written before all starts",
            )));
        }
        if values.len() as u64 > self.ends_left {
            return Err(invalid(EncodeError::Sequence(
                "more ends than the region's call count",
            )));
        }
        self.put(values)?;
        self.ends_left -= values.len() as u64;
        Ok(())
    }

    /// Writes a whole region.
    pub fn write_region(&mut self, region: &Region) -> io::Result<()> {
        let calls = checked_calls(region).map_err(invalid)?;
        self.begin_region(
            &region.name,
            region.source_file.as_deref(),
            region.source_line,
            calls,
        )?;
        self.write_starts(&region.starts)?;
        self.write_ends(&region.ends)
    }

    /// Checks that every announced region and call was written, flushes, and returns the
    /// output.
    pub fn finish(mut self) -> io::Result<W> {
        if self.regions_left > 0 || self.starts_left > 0 || self.ends_left > 0 {
            return Err(invalid(EncodeError::Sequence(
                "fewer regions or calls than announced",
            )));
        }
        self.out.flush()?;
        Ok(self.out)
    }

    fn put(&mut self, values: &[i64]) -> io::Result<()> {
        for chunk in values.chunks(CHUNK) {
            self.buf.clear();
            encode_timestamps(&mut self.buf, chunk, self.endian);
            self.out.write_all(&self.buf)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn solve() -> Region {
        Region {
            name: "solve".into(),
            source_file: Some("solver.c".into()),
            source_line: Some(7),
            starts: vec![10, 20, 40],
            ends: vec![15, 33, 55],
        }
    }

    #[test]
    fn streaming_matches_encode() {
        let trace = Trace {
            rank: 5,
            regions: vec![
                solve(),
                Region {
                    name: "idle".into(),
                    ..Region::default()
                },
            ],
        };
        for version in [Version::V1, Version::V2] {
            for endian in [Endian::Little, Endian::Big] {
                let mut w = TraceWriter::new(Vec::new(), version, endian, 5, 2).unwrap();
                w.begin_region("solve", Some("solver.c"), Some(7), 3)
                    .unwrap();
                w.write_starts(&[10, 20]).unwrap();
                w.write_starts(&[40]).unwrap();
                w.write_ends(&[]).unwrap();
                w.write_ends(&[15, 33, 55]).unwrap();
                w.write_region(&trace.regions[1]).unwrap();
                assert_eq!(w.finish().unwrap(), encode(&trace, version, endian));
            }
        }
    }

    #[test]
    fn misuse_is_an_invalid_input_error() {
        let kind = |r: io::Result<()>| r.unwrap_err().kind();
        let mut w = TraceWriter::new(Vec::new(), Version::V2, Endian::Little, 0, 1).unwrap();
        w.begin_region("a", None, None, 2).unwrap();
        assert_eq!(kind(w.write_ends(&[1])), io::ErrorKind::InvalidInput);
        assert_eq!(
            kind(w.write_starts(&[1, 2, 3])),
            io::ErrorKind::InvalidInput
        );
        assert_eq!(
            kind(w.begin_region("b", None, None, 0)),
            io::ErrorKind::InvalidInput
        );
        w.write_starts(&[1, 2]).unwrap();
        assert_eq!(kind(w.write_ends(&[1, 2, 3])), io::ErrorKind::InvalidInput);
        w.write_ends(&[3, 4]).unwrap();
        assert_eq!(
            kind(w.begin_region("b", None, None, 0)),
            io::ErrorKind::InvalidInput
        );
        w.finish().unwrap();

        let w = TraceWriter::new(Vec::new(), Version::V1, Endian::Big, 0, 1).unwrap();
        assert_eq!(w.finish().unwrap_err().kind(), io::ErrorKind::InvalidInput);
        assert_eq!(
            TraceWriter::new(Vec::new(), Version::V1, Endian::Big, 0, u64::MAX)
                .unwrap_err()
                .kind(),
            io::ErrorKind::InvalidInput
        );
    }

    #[test]
    fn mismatched_calls_cannot_be_encoded() {
        let mut region = solve();
        region.ends.pop();
        let trace = Trace {
            rank: 0,
            regions: vec![region],
        };
        let e = try_encode(&trace, Version::V2, Endian::Little).unwrap_err();
        assert_eq!(e, EncodeError::CallCountMismatch { starts: 3, ends: 2 });
        assert_eq!(e.to_string(), "3 starts but 2 ends");
    }

    #[test]
    fn capacity_hint_is_exact() {
        let trace = Trace {
            rank: 0,
            regions: vec![solve()],
        };
        assert_eq!(encoded_len(&trace, Version::V2), 105);
        assert_eq!(encoded_len(&trace, Version::V1), 89);
        assert_eq!(encode(&trace, Version::V2, Endian::Little).len(), 105);
        assert_eq!(encode(&trace, Version::V1, Endian::Big).len(), 89);
    }
}
