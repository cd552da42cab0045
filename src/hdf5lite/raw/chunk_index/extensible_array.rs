//! The extensible-array index (layout v4, type 4; `EAHD`, `EAIB`, `EASB`, `EADB`): for
//! datasets with one unlimited dimension. Elements (one per chunk, in row-major order with
//! the unlimited dimension moved first) live first in the index block, then in data blocks
//! that double in size every other super block; later data blocks are reached through
//! secondary blocks. Unallocated blocks mean chunks never written.

use super::{decode_element, unravel, ChunkGrid, ChunkRecord};
use crate::hdf5lite::error::{Error, Result};
use crate::hdf5lite::raw::fractal_heap::check_trailing_checksum;
use crate::hdf5lite::raw::source::Source;

/// Creation parameters from the header.
#[derive(Debug, Clone, Copy)]
struct Params {
    filtered: bool,
    element_size: u64,
    max_nelmts_bits: u8,
    index_elements: u64,
    data_block_min: u64,
    super_block_min_ptrs: u64,
    page_bits: u8,
}

impl Params {
    /// Data blocks in super block `s`.
    fn data_blocks(s: u32) -> u64 {
        1u64 << (s / 2)
    }

    /// Elements per data block of super block `s`.
    fn data_block_elements(&self, s: u32) -> u64 {
        self.data_block_min << s.div_ceil(2)
    }

    /// Number of super blocks needed to address `2^max_nelmts_bits` elements.
    fn super_blocks(&self) -> u32 {
        1 + u32::from(self.max_nelmts_bits) - self.data_block_min.trailing_zeros()
    }

    /// Bytes of a block offset field.
    fn offset_len(&self) -> u64 {
        u64::from(self.max_nelmts_bits).div_ceil(8)
    }
}

/// The chunks of the extensible array whose header is at `addr`.
pub fn records(
    src: &Source<'_>,
    addr: u64,
    grid: &ChunkGrid,
    filtered: bool,
) -> Result<Vec<ChunkRecord>> {
    let w = src.widths();
    let (o, l) = (u64::from(w.offset), u64::from(w.length));
    let at = src.absolute(addr)?;
    let head = src.metadata(addr, 12 + 6 * l + o + 4, "extensible array header")?;
    check_trailing_checksum(&head, at, "extensible array header")?;
    let mut c = src.cursor(&head, at);
    c.expect(b"EAHD", "extensible array header")?;
    let version = c.u8()?;
    if version != 0 {
        return Err(Error::unsupported(format!("extensible array version {version}")).at(at));
    }
    let client = c.u8()?;
    let p = Params {
        filtered: client == 1,
        element_size: u64::from(c.u8()?),
        max_nelmts_bits: c.u8()?,
        index_elements: u64::from(c.u8()?),
        data_block_min: u64::from(c.u8()?),
        super_block_min_ptrs: u64::from(c.u8()?),
        page_bits: c.u8()?,
    };
    for _ in 0..6 {
        c.length()?; // statistics
    }
    let index_block = c.address()?;
    if client > 1 || p.filtered != filtered {
        return Err(Error::format(format!(
            "extensible array client {client} does not match the pipeline"
        ))
        .at(at));
    }
    let pow2 = |v: u64| v.is_power_of_two();
    if !pow2(p.data_block_min)
        || !pow2(p.super_block_min_ptrs)
        || p.max_nelmts_bits > 64
        || p.page_bits >= 64
        || u32::from(p.max_nelmts_bits) < p.data_block_min.trailing_zeros()
        || p.element_size < o
    {
        return Err(Error::format("extensible array parameters are inconsistent").at(at));
    }
    let Some(index_block) = index_block else {
        return Ok(Vec::new());
    };
    let mut walker = Walker {
        src,
        p,
        grid,
        chunk_bytes: grid.chunk_bytes()?,
        counts: swizzled_counts(grid)?,
        out: Vec::new(),
    };
    walker.index_block(index_block)?;
    Ok(walker.out)
}

/// Chunk counts with the unlimited dimension first (the array's linear order).
fn swizzled_counts(grid: &ChunkGrid) -> Result<Vec<u64>> {
    let unlimited = grid
        .max_dims
        .iter()
        .position(|&m| m == u64::MAX)
        .unwrap_or(0);
    let mut counts = grid.max_counts();
    let first = counts.remove(unlimited);
    counts.insert(0, first);
    Ok(counts)
}

struct Walker<'s, 'a> {
    src: &'s Source<'a>,
    p: Params,
    grid: &'s ChunkGrid,
    chunk_bytes: u64,
    counts: Vec<u64>,
    out: Vec<ChunkRecord>,
}

impl Walker<'_, '_> {
    fn index_block(&mut self, addr: u64) -> Result<()> {
        let w = self.src.widths();
        let o = u64::from(w.offset);
        let at = self.src.absolute(addr)?;
        let p = self.p;
        // The index block addresses data blocks of the first super blocks directly.
        let direct_dblocks = 2 * (p.super_block_min_ptrs - 1);
        let mut direct_sblocks = 0u32;
        let mut covered = 0u64;
        while covered < direct_dblocks {
            covered += Params::data_blocks(direct_sblocks);
            direct_sblocks += 1;
        }
        let sblocks = p.super_blocks();
        let secondary = u64::from(sblocks.saturating_sub(direct_sblocks));
        let len =
            6 + o + p.index_elements * p.element_size + direct_dblocks * o + secondary * o + 4;
        let buf = self
            .src
            .metadata(addr, len, "extensible array index block")?;
        check_trailing_checksum(&buf, at, "extensible array index block")?;
        let mut c = self.src.cursor(&buf, at);
        c.expect(b"EAIB", "extensible array index block")?;
        c.skip(2)?;
        c.address()?;
        let mut index = 0u64;
        for _ in 0..p.index_elements {
            self.element(&mut c, index)?;
            index += 1;
        }
        let mut dblocks = Vec::new();
        for _ in 0..direct_dblocks {
            dblocks.push(c.address()?);
        }
        let mut sblock_addrs = Vec::new();
        for _ in 0..secondary {
            sblock_addrs.push(c.address()?);
        }
        let mut d = dblocks.into_iter();
        for s in 0..direct_sblocks {
            let n = p.data_block_elements(s);
            for _ in 0..Params::data_blocks(s) {
                if let Some(Some(a)) = d.next() {
                    self.data_block(a, index, n, None)?;
                }
                index = index.saturating_add(n);
            }
        }
        for (k, sb) in sblock_addrs.into_iter().enumerate() {
            let s = direct_sblocks + k as u32;
            let n = p.data_block_elements(s);
            let count = Params::data_blocks(s);
            if let Some(sb) = sb {
                self.super_block(sb, s, index)?;
            }
            index = index.saturating_add(count.saturating_mul(n));
        }
        Ok(())
    }

    fn super_block(&mut self, addr: u64, s: u32, first_index: u64) -> Result<()> {
        let w = self.src.widths();
        let o = u64::from(w.offset);
        let at = self.src.absolute(addr)?;
        let p = self.p;
        let ndblocks = Params::data_blocks(s);
        let nelem = p.data_block_elements(s);
        let page = 1u64 << p.page_bits;
        let pages_per_block = if nelem > page { nelem / page } else { 0 };
        let bitmap_len = (ndblocks * pages_per_block).div_ceil(8);
        let len = 6 + o + p.offset_len() + bitmap_len + ndblocks * o + 4;
        let buf = self
            .src
            .metadata(addr, len, "extensible array secondary block")?;
        check_trailing_checksum(&buf, at, "extensible array secondary block")?;
        let mut c = self.src.cursor(&buf, at);
        c.expect(b"EASB", "extensible array secondary block")?;
        c.skip(2)?;
        c.address()?;
        c.uint(p.offset_len() as u8)?;
        let bitmap = c.bytes(bitmap_len as usize)?.to_vec();
        let mut index = first_index;
        for b in 0..ndblocks {
            let a = c.address()?;
            if let Some(a) = a {
                let pages = (pages_per_block > 0).then(|| (bitmap.clone(), b * pages_per_block));
                self.data_block(a, index, nelem, pages)?;
            }
            index = index.saturating_add(nelem);
        }
        Ok(())
    }

    /// Reads a data block of `n` elements starting at array index `first`. `pages` is the
    /// owning secondary block's page bitmap and this block's first bit, when paged.
    fn data_block(
        &mut self,
        addr: u64,
        first: u64,
        n: u64,
        pages: Option<(Vec<u8>, u64)>,
    ) -> Result<()> {
        let w = self.src.widths();
        let o = u64::from(w.offset);
        let at = self.src.absolute(addr)?;
        let p = self.p;
        let prefix = 6 + o + p.offset_len();
        let es = p.element_size;
        let body = n
            .checked_mul(es)
            .ok_or_else(|| Error::format("extensible array data block overflows").at(at))?;
        match pages {
            None => {
                let buf =
                    self.src
                        .metadata(addr, prefix + body + 4, "extensible array data block")?;
                check_trailing_checksum(&buf, at, "extensible array data block")?;
                let mut c = self.src.cursor(&buf, at);
                c.expect(b"EADB", "extensible array data block")?;
                c.skip((prefix - 4) as usize)?;
                for i in 0..n {
                    self.element(&mut c, first + i)?;
                }
            }
            Some((bitmap, first_bit)) => {
                let page = 1u64 << p.page_bits;
                let npages = n / page;
                let len = prefix + 4 + npages * (page * es + 4);
                let buf = self
                    .src
                    .metadata(addr, len, "extensible array data block")?;
                check_trailing_checksum(
                    &buf[..(prefix + 4) as usize],
                    at,
                    "extensible array data block",
                )?;
                if &buf[..4] != b"EADB" {
                    return Err(Error::format("bad extensible array data block signature").at(at));
                }
                for k in 0..npages {
                    let bit = first_bit + k;
                    let set = bitmap
                        .get((bit / 8) as usize)
                        .is_some_and(|b| b & (0x80 >> (bit % 8)) != 0);
                    if !set {
                        continue;
                    }
                    let start = (prefix + 4 + k * (page * es + 4)) as usize;
                    let pbuf = &buf[start..start + (page * es + 4) as usize];
                    let pat = at + start as u64;
                    check_trailing_checksum(pbuf, pat, "extensible array page")?;
                    let mut c = self.src.cursor(pbuf, pat);
                    for i in 0..page {
                        self.element(&mut c, first + k * page + i)?;
                    }
                }
            }
        }
        Ok(())
    }

    fn element(
        &mut self,
        c: &mut crate::hdf5lite::raw::cursor::Cursor<'_>,
        index: u64,
    ) -> Result<()> {
        let es = self.p.element_size as usize;
        let entry = decode_element(&mut c.sub(es)?, self.p.filtered, es, self.chunk_bytes)?;
        if let Some((address, stored_size, filter_mask)) = entry {
            let mut scaled = unravel(index, &self.counts);
            // Undo the swizzle: the unlimited dimension goes back to its place.
            let unlimited = self
                .grid
                .max_dims
                .iter()
                .position(|&m| m == u64::MAX)
                .unwrap_or(0);
            let first = scaled.remove(0);
            scaled.insert(unlimited, first);
            if let Some(offset) = self.grid.offset_in_extent(&scaled) {
                self.out.push(ChunkRecord {
                    offset,
                    address,
                    stored_size,
                    filter_mask,
                });
            }
        }
        Ok(())
    }
}
