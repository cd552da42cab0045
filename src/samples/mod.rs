//! The `.sps` sample files the C API's line sampler writes (`sp_finalize()` with
//! `SCOPE_PROFILER_SAMPLE_HZ` set): at every timer tick, the interrupted instruction address,
//! the module it fell in and the innermost open region.
//!
//! The layout, in the writing machine's byte order (the reference's `native_samples.py`):
//!
//! ```text
//! char[8] "SCOPESMP"   int32 version (1)   int32 rank   int32 rate [Hz]   int64 ticks
//! int32 regions,  per region: int32 length, name
//! int32 modules,  per module: int32 length, path, uint64 load address (dladdr's dli_fbase)
//! int64 samples,  per sample: int32 region, int32 module (-1: unknown), uint64 address
//! ```
//!
//! [`parse`] borrows names and the sample array from the bytes (no copy, either byte
//! order, decided by the version field as for `.spt`), checks every count against what the
//! file can hold and against [`Limits`], and reports a [`SampleError`] with the byte offset.
//! [`encode`] writes the same layout, for tests and benchmarks.
//!
//! ```
//! use sp::samples::{encode, parse, Module, Sample, SampleFile};
//! use sp::trace::Endian;
//!
//! let file = SampleFile {
//!     rank: 3,
//!     hz: 1000,
//!     ticks: 2,
//!     regions: vec!["solve".into()],
//!     modules: vec![Module { path: "./app".into(), base: 0x5555_0000_0000 }],
//!     samples: vec![Sample { region: 0, module: 0, address: 0x5555_0000_1234 }],
//! };
//! let bytes = encode(&file, Endian::Big);
//! let view = parse(&bytes)?;
//! assert_eq!(view.endian, Endian::Big);
//! assert_eq!(view.regions[0], "solve");
//! assert_eq!(view.samples.get(0).unwrap().address, 0x5555_0000_1234);
//! assert_eq!(view.to_owned(), file);
//! # Ok::<(), sp::samples::SampleError>(())
//! ```

mod error;

use std::borrow::Cow;

pub use error::{SampleError, SampleErrorClass, SampleErrorKind, SampleField};

use crate::trace::Endian;

/// The 8 bytes every sample file starts with.
pub const MAGIC: [u8; 8] = *b"SCOPESMP";
/// The one format version there is.
pub const VERSION: i32 = 1;
/// The file name suffix `sp_finalize()` gives sample files.
pub const SUFFIX: &str = ".sps";
/// Bytes of one sample record.
pub const SAMPLE_LEN: usize = 16;
/// Bytes before the region count.
pub const HEADER_LEN: usize = 28;

/// Caps on what one file may claim, beyond what its size allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub max_regions: u64,
    pub max_modules: u64,
    /// Bytes of one region name or module path.
    pub max_name_len: u64,
    pub max_samples: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_regions: 1 << 20,
            max_modules: 1 << 16,
            max_name_len: 1 << 16,
            max_samples: 1 << 32,
        }
    }
}

/// One module a sample fell in: its path as `dladdr` gave it (often relative to the
/// directory the program ran in) and the address it was loaded at.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Module {
    pub path: String,
    pub base: u64,
}

/// One sample: region and module indices (negative or out of range: unknown) and the
/// interrupted instruction address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Sample {
    pub region: i32,
    pub module: i32,
    pub address: u64,
}

/// An owned sample file, for writing.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SampleFile {
    pub rank: i32,
    pub hz: i32,
    pub ticks: i64,
    pub regions: Vec<String>,
    pub modules: Vec<Module>,
    pub samples: Vec<Sample>,
}

/// A module as borrowed from the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModuleView<'a> {
    /// Invalid UTF-8 is replaced, as the reference decodes it.
    pub path: Cow<'a, str>,
    pub base: u64,
}

/// The sample records, decoded on access.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Samples<'a> {
    bytes: &'a [u8],
    endian: Endian,
}

impl<'a> Samples<'a> {
    /// Number of samples.
    pub fn len(&self) -> usize {
        self.bytes.len() / SAMPLE_LEN
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// Sample `i`, if there is one.
    pub fn get(&self, i: usize) -> Option<Sample> {
        let at = i.checked_mul(SAMPLE_LEN)?;
        let raw: &[u8; SAMPLE_LEN] = self.bytes.get(at..at + SAMPLE_LEN)?.try_into().ok()?;
        Some(decode_sample(raw, self.endian))
    }

    /// The samples in file order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Sample> + 'a {
        let endian = self.endian;
        self.bytes
            .chunks_exact(SAMPLE_LEN)
            .map(move |raw| decode_sample(raw.try_into().unwrap_or(&[0; SAMPLE_LEN]), endian))
    }
}

fn decode_sample(raw: &[u8; SAMPLE_LEN], endian: Endian) -> Sample {
    let [r0, r1, r2, r3, m0, m1, m2, m3, a @ ..] = *raw;
    let (region, module, address) = match endian {
        Endian::Little => (
            i32::from_le_bytes([r0, r1, r2, r3]),
            i32::from_le_bytes([m0, m1, m2, m3]),
            u64::from_le_bytes(a),
        ),
        Endian::Big => (
            i32::from_be_bytes([r0, r1, r2, r3]),
            i32::from_be_bytes([m0, m1, m2, m3]),
            u64::from_be_bytes(a),
        ),
    };
    Sample {
        region,
        module,
        address,
    }
}

/// A validated sample file borrowed from its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SampleView<'a> {
    pub endian: Endian,
    pub rank: i32,
    /// The sampling rate the timer was set to [Hz].
    pub hz: i32,
    /// Timer ticks in total, whether or not they landed in a region.
    pub ticks: i64,
    /// Region names, in file order (invalid UTF-8 replaced).
    pub regions: Vec<Cow<'a, str>>,
    pub modules: Vec<ModuleView<'a>>,
    pub samples: Samples<'a>,
}

impl SampleView<'_> {
    /// An owned copy.
    pub fn to_owned(&self) -> SampleFile {
        SampleFile {
            rank: self.rank,
            hz: self.hz,
            ticks: self.ticks,
            regions: self.regions.iter().map(|r| r.to_string()).collect(),
            modules: self
                .modules
                .iter()
                .map(|m| Module {
                    path: m.path.to_string(),
                    base: m.base,
                })
                .collect(),
            samples: self.samples.iter().collect(),
        }
    }
}

/// A bounded cursor over the file's bytes that knows the byte order.
struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
    endian: Endian,
}

impl<'a> Cursor<'a> {
    fn remaining(&self) -> u64 {
        (self.bytes.len() - self.pos) as u64
    }

    fn take(
        &mut self,
        n: u64,
        field: SampleField,
        index: Option<u64>,
    ) -> Result<&'a [u8], SampleError> {
        if n > self.remaining() {
            return Err(SampleError::new(
                SampleErrorKind::Truncated {
                    field,
                    index,
                    needed: n,
                    available: self.remaining(),
                },
                self.pos as u64,
            ));
        }
        let start = self.pos;
        self.pos += n as usize;
        Ok(&self.bytes[start..self.pos])
    }

    fn array<const N: usize>(
        &mut self,
        field: SampleField,
        index: Option<u64>,
    ) -> Result<[u8; N], SampleError> {
        let raw = self.take(N as u64, field, index)?;
        let mut out = [0; N];
        out.copy_from_slice(raw);
        Ok(out)
    }

    fn i32(&mut self, field: SampleField, index: Option<u64>) -> Result<i32, SampleError> {
        let raw = self.array::<4>(field, index)?;
        Ok(match self.endian {
            Endian::Little => i32::from_le_bytes(raw),
            Endian::Big => i32::from_be_bytes(raw),
        })
    }

    fn i64(&mut self, field: SampleField, index: Option<u64>) -> Result<i64, SampleError> {
        let raw = self.array::<8>(field, index)?;
        Ok(match self.endian {
            Endian::Little => i64::from_le_bytes(raw),
            Endian::Big => i64::from_be_bytes(raw),
        })
    }

    /// A count (or length) that must be non-negative, within `limit`, and leave room for
    /// `count × min_size` bytes.
    fn count(
        &mut self,
        value: i64,
        field: SampleField,
        limit: u64,
        min_size: u64,
        at: usize,
    ) -> Result<u64, SampleError> {
        let err = |kind| Err(SampleError::new(kind, at as u64));
        let Ok(count) = u64::try_from(value) else {
            return err(SampleErrorKind::Negative { field, value });
        };
        if count > limit {
            return err(SampleErrorKind::OverLimit {
                field,
                value: count,
                limit,
            });
        }
        if count.saturating_mul(min_size) > self.remaining() {
            return err(SampleErrorKind::CountTooLarge {
                field,
                count,
                available: self.remaining(),
            });
        }
        Ok(count)
    }

    /// An int32 length and that many bytes of text.
    fn string(
        &mut self,
        field: SampleField,
        index: u64,
        limits: &Limits,
    ) -> Result<Cow<'a, str>, SampleError> {
        let at = self.pos;
        let len = self.i32(field, Some(index))?;
        let len = match u64::try_from(len) {
            Ok(n) if n > limits.max_name_len => {
                return Err(SampleError::new(
                    SampleErrorKind::OverLimit {
                        field,
                        value: n,
                        limit: limits.max_name_len,
                    },
                    at as u64,
                ))
            }
            Ok(n) => n,
            Err(_) => {
                return Err(SampleError::new(
                    SampleErrorKind::Negative {
                        field,
                        value: len.into(),
                    },
                    at as u64,
                ))
            }
        };
        Ok(String::from_utf8_lossy(self.take(
            len,
            field,
            Some(index),
        )?))
    }
}

/// Parses a whole sample file with default [`Limits`].
pub fn parse(bytes: &[u8]) -> Result<SampleView<'_>, SampleError> {
    parse_with_limits(bytes, &Limits::default())
}

/// Parses a whole sample file. Rejects what the reference rejects (a wrong magic, another
/// version, truncation, bytes after the samples), and also negative counts and counts the
/// file cannot hold, before anything is allocated for them.
pub fn parse_with_limits<'a>(
    bytes: &'a [u8],
    limits: &Limits,
) -> Result<SampleView<'a>, SampleError> {
    if bytes.get(..8) != Some(&MAGIC[..]) {
        return Err(SampleError::new(SampleErrorKind::BadMagic, 0));
    }
    let version = bytes
        .get(8..12)
        .and_then(|v| <[u8; 4]>::try_from(v).ok())
        .ok_or_else(|| {
            SampleError::new(
                SampleErrorKind::Truncated {
                    field: SampleField::Header,
                    index: None,
                    needed: 4,
                    available: bytes.len() as u64 - 8,
                },
                8,
            )
        })?;
    let endian = if i32::from_le_bytes(version) == VERSION {
        Endian::Little
    } else if i32::from_be_bytes(version) == VERSION {
        Endian::Big
    } else {
        return Err(SampleError::new(
            SampleErrorKind::UnsupportedVersion(i32::from_le_bytes(version)),
            8,
        ));
    };
    let mut c = Cursor {
        bytes,
        pos: 12,
        endian,
    };
    let rank = c.i32(SampleField::Header, None)?;
    let hz = c.i32(SampleField::Header, None)?;
    let ticks = c.i64(SampleField::Header, None)?;

    let at = c.pos;
    let n = c.i32(SampleField::RegionCount, None)?;
    let n = c.count(
        n.into(),
        SampleField::RegionCount,
        limits.max_regions,
        4,
        at,
    )?;
    let mut regions = Vec::new();
    for i in 0..n {
        regions.push(c.string(SampleField::RegionName, i, limits)?);
    }

    let at = c.pos;
    let n = c.i32(SampleField::ModuleCount, None)?;
    let n = c.count(
        n.into(),
        SampleField::ModuleCount,
        limits.max_modules,
        12,
        at,
    )?;
    let mut modules = Vec::new();
    for i in 0..n {
        let path = c.string(SampleField::ModulePath, i, limits)?;
        let base = c.array::<8>(SampleField::LoadAddress, Some(i))?;
        let base = match endian {
            Endian::Little => u64::from_le_bytes(base),
            Endian::Big => u64::from_be_bytes(base),
        };
        modules.push(ModuleView { path, base });
    }

    let at = c.pos;
    let n = c.i64(SampleField::SampleCount, None)?;
    let n = c.count(
        n,
        SampleField::SampleCount,
        limits.max_samples,
        SAMPLE_LEN as u64,
        at,
    )?;
    let samples = c.take(n * SAMPLE_LEN as u64, SampleField::Samples, None)?;
    if c.remaining() > 0 {
        return Err(SampleError::new(
            SampleErrorKind::TrailingBytes(c.remaining()),
            c.pos as u64,
        ));
    }
    Ok(SampleView {
        endian,
        rank,
        hz,
        ticks,
        regions,
        modules,
        samples: Samples {
            bytes: samples,
            endian,
        },
    })
}

/// Writes `file` in the layout `sp_finalize()` writes, in `endian` order.
pub fn encode(file: &SampleFile, endian: Endian) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    let i32_ = |out: &mut Vec<u8>, v: i32| {
        out.extend_from_slice(&match endian {
            Endian::Little => v.to_le_bytes(),
            Endian::Big => v.to_be_bytes(),
        })
    };
    let u64_ = |out: &mut Vec<u8>, v: u64| {
        out.extend_from_slice(&match endian {
            Endian::Little => v.to_le_bytes(),
            Endian::Big => v.to_be_bytes(),
        })
    };
    let text = |out: &mut Vec<u8>, s: &str| {
        i32_(out, i32::try_from(s.len()).unwrap_or(i32::MAX));
        out.extend_from_slice(s.as_bytes());
    };
    i32_(&mut out, VERSION);
    i32_(&mut out, file.rank);
    i32_(&mut out, file.hz);
    u64_(&mut out, file.ticks as u64);
    i32_(&mut out, file.regions.len() as i32);
    for r in &file.regions {
        text(&mut out, r);
    }
    i32_(&mut out, file.modules.len() as i32);
    for m in &file.modules {
        text(&mut out, &m.path);
        u64_(&mut out, m.base);
    }
    u64_(&mut out, file.samples.len() as u64);
    for s in &file.samples {
        i32_(&mut out, s.region);
        i32_(&mut out, s.module);
        u64_(&mut out, s.address);
    }
    out
}

#[cfg(test)]
mod tests;
