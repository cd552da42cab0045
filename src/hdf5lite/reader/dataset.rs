//! Datasets: their datatype, dataspace, storage and filters, read when the dataset is
//! opened, and their elements, read when asked for (only the chunks a range touches).

use std::sync::{Arc, OnceLock};

use super::attribute::{Attribute, Attributes};
use super::value::{self, Decoder, Value};
use super::{decode, first, usize_of, File};
use crate::hdf5lite::error::{Error, Result};
use crate::hdf5lite::filters::Filter;
use crate::hdf5lite::model::{ByteOrder, Datatype, Shape, StringLength};
use crate::hdf5lite::raw::chunk_index::ChunkRecord;
use crate::hdf5lite::raw::messages::{
    ChunkIndex, DataLayout, Dataspace, FillValue, FillValueState, FilterPipeline, MessageType,
};
use crate::hdf5lite::raw::object_header::ObjectHeader;
use crate::hdf5lite::raw::source::Source;
use crate::io::ReadAt;

/// How a dataset's data is stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Storage {
    /// In the object header.
    Compact,
    /// One block of the file (none yet when never written).
    Contiguous,
    /// Fixed-size chunks found through an index, each through the filter pipeline.
    Chunked {
        /// Chunk shape in elements.
        chunk: Vec<u64>,
        index: ChunkIndex,
        filters: Vec<Filter>,
    },
    /// In other files (external storage): listed, not read.
    External,
    /// Mapped from other datasets (a virtual dataset): listed, not read.
    Virtual,
}

/// A dataset.
#[derive(Debug)]
pub struct Dataset<'f, R: ReadAt> {
    pub(super) file: &'f File<R>,
    pub(super) path: String,
    header: Arc<ObjectHeader>,
    pub(super) datatype: Datatype,
    dataspace: Dataspace,
    pub(super) layout: DataLayout,
    pub(super) filters: Vec<Filter>,
    fill: Option<Vec<u8>>,
    external: bool,
    /// The chunk index, walked once on first use (sorted by offset for 1-D datasets), so
    /// reading a dataset range by range does not walk it again for every range.
    pub(super) chunk_records: OnceLock<Vec<ChunkRecord>>,
}

impl<'f, R: ReadAt> Dataset<'f, R> {
    pub(super) fn new(file: &'f File<R>, path: String, header: Arc<ObjectHeader>) -> Result<Self> {
        Self::parse(file, &path, header).map_err(|e| e.in_object(path))
    }

    fn parse(file: &'f File<R>, path: &str, header: Arc<ObjectHeader>) -> Result<Self> {
        let src = file.src();
        let need = |t: MessageType| {
            first(&header, t).ok_or_else(|| {
                Error::format(format!(
                    "dataset has no {} message",
                    t.name().unwrap_or("?")
                ))
            })
        };
        let external = first(&header, MessageType::EXTERNAL_FILES).is_some();
        let datatype = file.datatype_message(need(MessageType::DATATYPE)?, 0)?;
        let dataspace = decode(need(MessageType::DATASPACE)?, &src, Dataspace::parse)?;
        let layout = decode(need(MessageType::LAYOUT)?, &src, DataLayout::parse)?;
        let filters = match first(&header, MessageType::FILTER_PIPELINE) {
            Some(m) => decode(m, &src, FilterPipeline::parse)?.filters,
            None => Vec::new(),
        };
        let fill = match first(&header, MessageType::FILL_VALUE) {
            Some(m) => Some(decode(m, &src, FillValue::parse)?),
            None => match first(&header, MessageType::FILL_VALUE_OLD) {
                Some(m) => Some(decode(m, &src, FillValue::parse_old)?),
                None => None,
            },
        };
        let fill = match fill.map(|f| f.value) {
            Some(FillValueState::User(v)) if !v.is_empty() => Some(v),
            _ => None,
        };
        Ok(Dataset {
            file,
            path: path.to_string(),
            header,
            datatype,
            dataspace,
            layout,
            filters,
            fill,
            external,
            chunk_records: OnceLock::new(),
        })
    }

    /// The absolute path.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The element type ([`Datatype::Unsupported`] for one this crate cannot decode).
    pub fn datatype(&self) -> &Datatype {
        &self.datatype
    }

    /// The shape; `None` for a null dataspace (no elements, not even a scalar).
    pub fn shape(&self) -> Option<Shape> {
        self.dataspace.shape()
    }

    /// The address hard links to this dataset hold (see [`Group::address`](super::Group::address)).
    pub fn address(&self) -> u64 {
        self.header
            .address
            .saturating_sub(self.file.superblock.base_address)
    }

    /// Maximum dimension sizes (`u64::MAX` = unlimited); `None` when not simple.
    pub fn max_shape(&self) -> Option<Vec<u64>> {
        match &self.dataspace {
            Dataspace::Simple { dims, max_dims } => {
                Some(max_dims.clone().unwrap_or_else(|| dims.clone()))
            }
            _ => None,
        }
    }

    /// How the data is stored.
    pub fn storage(&self) -> Storage {
        if self.external {
            return Storage::External;
        }
        match &self.layout {
            DataLayout::Compact { .. } => Storage::Compact,
            DataLayout::Chunked { dims, index, .. } => Storage::Chunked {
                chunk: dims[..dims.len().saturating_sub(1)].to_vec(),
                index: index.clone(),
                filters: self.filters.clone(),
            },
            DataLayout::Virtual { .. } => Storage::Virtual,
            DataLayout::Contiguous { .. } => Storage::Contiguous,
        }
    }

    /// Where a contiguous dataset's bytes lie, as (absolute offset, length): what
    /// [`File::will_read`](super::File::will_read) announces. `None` for other layouts and
    /// for storage never written.
    pub fn extent(&self) -> Option<(u64, u64)> {
        match &self.layout {
            DataLayout::Contiguous {
                address: Some(addr),
                size,
            } => Some((self.file.src().absolute(*addr).ok()?, *size)),
            _ => None,
        }
    }

    /// The attributes one at a time (see [`Group::iter_attributes`](super::Group::iter_attributes)).
    pub fn iter_attributes(&self) -> Result<Attributes<'f, R>> {
        Attributes::read(self.file, &self.header, &self.path)
    }

    /// Every attribute, sorted by name; fails if any one cannot be read.
    pub fn attributes(&self) -> Result<Vec<Attribute>> {
        self.iter_attributes()?.collect()
    }

    /// The attribute `name`, if present, decoding no other.
    pub fn attribute(&self, name: &str) -> Result<Option<Attribute>> {
        self.iter_attributes()?.find_name(name)
    }

    pub(super) fn dims(&self) -> Vec<u64> {
        match &self.dataspace {
            Dataspace::Simple { dims, .. } => dims.clone(),
            _ => Vec::new(),
        }
    }

    pub(super) fn element_size(&self) -> Result<u64> {
        self.datatype
            .element_size()
            .filter(|&s| s > 0)
            .ok_or_else(|| Error::format("element size is 0 or overflows"))
    }

    /// Number of elements.
    pub fn len(&self) -> Result<u64> {
        match self.shape() {
            None => Ok(0),
            Some(s) => s
                .element_count()
                .ok_or_else(|| Error::format("element count overflows")),
        }
    }

    /// Whether the dataset holds no elements.
    pub fn is_empty(&self) -> Result<bool> {
        Ok(self.len()? == 0)
    }

    /// All elements, in file byte order, row-major.
    pub fn read_raw(&self) -> Result<Vec<u8>> {
        let n = self.len().map_err(|e| e.in_object(self.path.clone()))?;
        self.read_elements(0, n)
            .map_err(|e| e.in_object(self.path.clone()))
    }

    /// Elements `start .. start + count` of a one-dimensional (or scalar) dataset, reading
    /// only the chunks they touch.
    pub fn read_raw_range(&self, start: u64, count: u64) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        self.read_raw_range_into(start, count, &mut out)?;
        Ok(out)
    }

    /// [`read_raw_range`](Self::read_raw_range) appended to `out`: a caller reading a
    /// dataset block by block reuses one buffer, and contiguous storage is read straight
    /// into it.
    pub fn read_raw_range_into(&self, start: u64, count: u64, out: &mut Vec<u8>) -> Result<()> {
        let ctx = |e: Error| e.in_object(self.path.clone());
        if self.dims().len() > 1 {
            return Err(ctx(Error::usage("ranges are for one-dimensional datasets")));
        }
        let n = self.len().map_err(ctx)?;
        if !matches!(start.checked_add(count), Some(end) if end <= n) {
            return Err(ctx(Error::usage(format!(
                "range {start}+{count} passes the {n} elements"
            ))));
        }
        self.read_elements_into(start, count, out).map_err(ctx)
    }

    /// Appends `n` elements of the fill value (zeros without one) to `out`; returns where
    /// they begin.
    fn append_filled(&self, n: u64, es: u64, out: &mut Vec<u8>) -> Result<usize> {
        let bytes = self.read_bytes(n, es)?;
        let at = out.len();
        out.resize(at + usize_of(bytes)?, 0);
        if let Some(fill) = &self.fill {
            if fill.len() as u64 == es {
                for piece in out[at..].chunks_exact_mut(es as usize) {
                    piece.copy_from_slice(fill);
                }
            }
        }
        Ok(at)
    }

    /// The bytes of `n` elements of `es` bytes, checked against the read limit.
    fn read_bytes(&self, n: u64, es: u64) -> Result<u64> {
        let bytes = n
            .checked_mul(es)
            .ok_or_else(|| Error::format("dataset size overflows"))?;
        let limit = self.file.limits.max_read_bytes;
        if bytes > limit {
            return Err(Error::limits(format!(
                "reading {bytes} bytes exceeds the limit of {limit}"
            )));
        }
        Ok(bytes)
    }

    /// Fails when the data cannot be read here (external or virtual storage), or when
    /// compact or contiguous storage cannot hold the dataspace or lies past the end of the
    /// file: checked before anything is sized by the dataspace.
    fn check_storage(&self, src: &Source<'_>, es: u64) -> Result<()> {
        match self.storage() {
            Storage::External => return Err(Error::unsupported("external data files")),
            Storage::Virtual => return Err(Error::unsupported("virtual dataset layout")),
            _ => {}
        }
        let need = self
            .len()?
            .checked_mul(es)
            .ok_or_else(|| Error::format("dataset size overflows"))?;
        let (what, held) = match &self.layout {
            DataLayout::Compact { data } => ("compact", data.len() as u64),
            DataLayout::Contiguous {
                address: Some(addr),
                size,
            } => {
                let end = src.absolute(*addr)?.checked_add(*size);
                if !matches!(end, Some(e) if e <= src.file_len()) {
                    return Err(Error::format(format!(
                        "contiguous storage of {size} bytes at address {addr} passes the end \
                         of the file ({} bytes)",
                        src.file_len()
                    )));
                }
                ("contiguous", *size)
            }
            _ => return Ok(()),
        };
        if held < need {
            return Err(Error::format(format!(
                "{what} storage of {held} bytes is shorter than the {need} bytes the dataspace \
                 needs"
            )));
        }
        Ok(())
    }

    /// Elements `start .. start + count` in row-major order (all of them for rank ≠ 1).
    fn read_elements(&self, start: u64, count: u64) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        self.read_elements_into(start, count, &mut out)?;
        Ok(out)
    }

    /// [`read_elements`](Self::read_elements) appended to `out`.
    fn read_elements_into(&self, start: u64, count: u64, out: &mut Vec<u8>) -> Result<()> {
        let src = self.file.src();
        let es = self.element_size()?;
        self.check_storage(&src, es)?;
        if let DataLayout::Contiguous {
            address: Some(addr),
            ..
        } = &self.layout
        {
            // Every byte comes from the file: appended as read, with no fill first, which
            // the read would overwrite (zeroing was a tenth of a series' open in the page).
            let bytes = self.read_bytes(count, es)?;
            if count == 0 {
                return Ok(());
            }
            let lo = match start.checked_add(count).and_then(|end| end.checked_mul(es)) {
                Some(_) => start * es,
                None => return Err(Error::format("dataset size overflows")),
            };
            let addr = addr
                .checked_add(lo)
                .ok_or_else(|| Error::format("contiguous data address overflows"))?;
            let cap = self.file.limits.max_read_bytes;
            return src.raw_append(addr, bytes, out, cap, "contiguous data");
        }
        let at = self.append_filled(count, es, out)?;
        let out = &mut out[at..];
        if count == 0 {
            return Ok(());
        }
        let (lo, hi) = match start.checked_add(count).and_then(|end| end.checked_mul(es)) {
            Some(hi) => (start * es, hi),
            None => return Err(Error::format("dataset size overflows")),
        };
        match &self.layout {
            DataLayout::Compact { data } => {
                let piece = data
                    .get(usize_of(lo)?..usize_of(hi)?)
                    .ok_or_else(|| Error::format("compact data is shorter than the dataset"))?;
                out.copy_from_slice(piece);
            }
            DataLayout::Contiguous { address, .. } => {
                if let Some(addr) = address {
                    let addr = addr
                        .checked_add(lo)
                        .ok_or_else(|| Error::format("contiguous data address overflows"))?;
                    let cap = self.file.limits.max_read_bytes;
                    src.raw_into(addr, out, cap, "contiguous data")?;
                }
            }
            DataLayout::Chunked {
                address,
                dims,
                index,
                ..
            } => {
                self.read_chunked(&src, *address, dims, index, start, count, out)?;
            }
            DataLayout::Virtual { .. } => return Err(Error::unsupported("virtual dataset layout")),
        }
        Ok(())
    }

    /// Every element decoded, row-major.
    pub fn read_values(&self) -> Result<Vec<Value>> {
        let ctx = |e: Error| e.in_object(self.path.clone());
        if let Some(reason) = self.datatype.unsupported() {
            return Err(ctx(Error::unsupported(reason)));
        }
        let raw = self.read_raw()?;
        self.decode_all(&raw).map_err(ctx)
    }

    /// Elements `start .. start + count` of a one-dimensional (or scalar) dataset, decoded,
    /// reading only the chunks they touch.
    pub fn read_values_range(&self, start: u64, count: u64) -> Result<Vec<Value>> {
        let ctx = |e: Error| e.in_object(self.path.clone());
        if let Some(reason) = self.datatype.unsupported() {
            return Err(ctx(Error::unsupported(reason)));
        }
        let raw = self.read_raw_range(start, count)?;
        self.decode_all(&raw).map_err(ctx)
    }

    fn decode_all(&self, raw: &[u8]) -> Result<Vec<Value>> {
        self.decode_each(raw, |dec, b| dec.value(&self.datatype, b, 0))
    }

    /// Each element of `raw` through `decode`, with a decoder that follows the file's heap
    /// objects and references: the set-up every decoding read shares.
    fn decode_each<T>(
        &self,
        raw: &[u8],
        mut decode: impl FnMut(&mut Decoder<'_, '_>, &[u8]) -> Result<T>,
    ) -> Result<Vec<T>> {
        let src = self.file.src();
        let file = self.file;
        let path_of = |addr: u64| Ok(file.path_of(addr).map(str::to_owned));
        let mut dec = Decoder::new(&src, &path_of);
        let es = usize_of(self.element_size()?)?;
        // Sized from the bytes in hand, not from a count: a million strings grew the
        // vector twenty times over.
        let mut out = Vec::with_capacity(raw.len() / es.max(1));
        for b in raw.chunks_exact(es) {
            out.push(decode(&mut dec, b)?);
        }
        Ok(out)
    }

    /// Integer elements as `i64` (any width, sign or byte order; overflow is an error).
    pub fn read_i64s(&self) -> Result<Vec<i64>> {
        self.read_ints(|v| i64::try_from(v).ok())
    }

    /// Integer elements as `u64` (negative values are an error).
    pub fn read_u64s(&self) -> Result<Vec<u64>> {
        self.read_ints(|v| u64::try_from(v).ok())
    }

    fn read_ints<T>(&self, conv: impl Fn(i128) -> Option<T>) -> Result<Vec<T>> {
        let ctx = |e: Error| e.in_object(self.path.clone());
        let Datatype::Integer {
            size,
            signed,
            order,
        } = self.datatype
        else {
            return Err(ctx(Error::usage("not an integer dataset")));
        };
        let raw = self.read_raw()?;
        if let Some(values) = plain_ints(&raw, size, signed, order, &conv) {
            return Ok(values);
        }
        raw.chunks_exact(usize_of(u64::from(size)).map_err(ctx)?)
            .map(|b| {
                let v = value::int(b, size, signed, order, 0)?;
                conv(v).ok_or_else(|| {
                    Error::new(
                        crate::hdf5lite::ErrorKind::Format,
                        format!("value {v} does not fit"),
                    )
                })
            })
            .collect::<Result<Vec<_>>>()
            .map_err(ctx)
    }

    /// Float elements as `f64`.
    pub fn read_f64s(&self) -> Result<Vec<f64>> {
        let ctx = |e: Error| e.in_object(self.path.clone());
        let Datatype::Float { size, order } = self.datatype else {
            return Err(ctx(Error::usage("not a floating-point dataset")));
        };
        let raw = self.read_raw()?;
        raw.chunks_exact(usize_of(u64::from(size)).map_err(ctx)?)
            .map(|b| value::float(b, size, order, 0))
            .collect::<Result<Vec<_>>>()
            .map_err(ctx)
    }

    /// String elements (fixed or variable length), padding removed; must be UTF-8.
    pub fn read_strings(&self) -> Result<Vec<String>> {
        self.read_strings_with(str::to_owned)
    }

    /// String elements (as [`read_strings`](Self::read_strings)), each handed to `f` as it
    /// is decoded, so a caller can share equal strings: a 100,000-rank index holds millions
    /// of a few distinct values, and a `String` each was an allocation per element.
    pub fn read_strings_with<T>(&self, mut f: impl FnMut(&str) -> T) -> Result<Vec<T>> {
        let ctx = |e: Error| e.in_object(self.path.clone());
        if !matches!(self.datatype, Datatype::String { .. }) {
            return Err(ctx(Error::usage("not a string dataset")));
        }
        if self.is_vlen_string() {
            // Straight from the heap objects: a [`Value`] and a copy per string took a
            // quarter of reading a 100,000-rank index.
            let raw = self.read_raw()?;
            return self
                .decode_each(&raw, |dec, b| {
                    let bytes = dec.vlen_bytes(b, 1, 0)?;
                    std::str::from_utf8(bytes)
                        .map(&mut f)
                        .map_err(|_| Error::format("string is not valid UTF-8"))
                })
                .map_err(ctx);
        }
        self.read_values()?
            .into_iter()
            .map(|v| match v {
                Value::String(s) => Ok(f(&s)),
                _ => Err(ctx(Error::format("string is not valid UTF-8"))),
            })
            .collect()
    }

    /// Whether elements are variable-length strings.
    pub fn is_vlen_string(&self) -> bool {
        matches!(
            self.datatype,
            Datatype::String {
                length: StringLength::Variable,
                ..
            }
        )
    }
}

/// The common integer widths (1, 2, 4, 8 bytes) decoded straight from the bytes: the
/// element-by-element decoder took a tenth of reading a 100,000-rank index. `None` for
/// other widths, or when a value does not convert (the caller's path names the error).
fn plain_ints<T>(
    raw: &[u8],
    size: u32,
    signed: bool,
    order: ByteOrder,
    conv: &impl Fn(i128) -> Option<T>,
) -> Option<Vec<T>> {
    fn each<const N: usize, T>(
        raw: &[u8],
        decode: impl Fn([u8; N]) -> i128,
        conv: &impl Fn(i128) -> Option<T>,
    ) -> Option<Vec<T>> {
        raw.chunks_exact(N)
            .map(|b| conv(decode(b.try_into().ok()?)))
            .collect()
    }
    let big = order == ByteOrder::Big;
    macro_rules! width {
        ($n:literal, $s:ty, $u:ty) => {
            each::<$n, T>(
                raw,
                |b| match (signed, big) {
                    (true, false) => i128::from(<$s>::from_le_bytes(b)),
                    (true, true) => i128::from(<$s>::from_be_bytes(b)),
                    (false, false) => i128::from(<$u>::from_le_bytes(b)),
                    (false, true) => i128::from(<$u>::from_be_bytes(b)),
                },
                conv,
            )
        };
    }
    match size {
        1 => width!(1, i8, u8),
        2 => width!(2, i16, u16),
        4 => width!(4, i32, u32),
        8 => width!(8, i64, u64),
        _ => None,
    }
}
