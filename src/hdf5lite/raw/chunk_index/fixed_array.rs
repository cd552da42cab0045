//! The fixed-array index (layout v4, type 3; `FAHD` + `FADB`): one entry per chunk of the
//! maximum chunk grid, in row-major order, optionally split into checksummed pages.

use super::{decode_element, unravel, ChunkGrid, ChunkRecord};
use crate::hdf5lite::error::{Error, Result};
use crate::hdf5lite::raw::fractal_heap::check_trailing_checksum;
use crate::hdf5lite::raw::source::Source;

/// The chunks of the fixed array whose header is at `addr`.
pub fn records(
    src: &Source<'_>,
    addr: u64,
    grid: &ChunkGrid,
    filtered: bool,
) -> Result<Vec<ChunkRecord>> {
    let w = src.widths();
    let at = src.absolute(addr)?;
    let head_len = 8 + u64::from(w.length) + u64::from(w.offset) + 4;
    let head = src.metadata(addr, head_len, "fixed array header")?;
    check_trailing_checksum(&head, at, "fixed array header")?;
    let mut c = src.cursor(&head, at);
    c.expect(b"FAHD", "fixed array header")?;
    let version = c.u8()?;
    if version != 0 {
        return Err(Error::unsupported(format!("fixed array version {version}")).at(at));
    }
    let client = c.u8()?;
    let entry_size = c.u8()?;
    let page_bits = c.u8()?;
    let max_entries = c.length()?;
    let data_block = c.address()?;
    if (client == 1) != filtered || client > 1 {
        return Err(Error::format(format!(
            "fixed array client {client} does not match the pipeline"
        ))
        .at(at));
    }
    let min_entry = u64::from(w.offset) + if filtered { 5 } else { 0 };
    if u64::from(entry_size) < min_entry || page_bits >= 64 {
        return Err(Error::format(format!("fixed array entry size {entry_size}")).at(at));
    }
    let Some(data_block) = data_block else {
        return Ok(Vec::new());
    };
    let dat = src.absolute(data_block)?;
    let es = u64::from(entry_size);
    let page_len = 1u64 << page_bits;
    let paged = max_entries > page_len;
    let pages = if paged {
        max_entries.div_ceil(page_len)
    } else {
        0
    };
    let bitmap_len = pages.div_ceil(8);
    let prefix_len = 6 + u64::from(w.offset) + bitmap_len;
    // The whole block must be in the file before its entries are walked.
    let entries_len = max_entries
        .checked_mul(es)
        .and_then(|n| n.checked_add(pages * 4))
        .ok_or_else(|| Error::format("fixed array size overflows").at(dat))?;
    // Unpaged: prefix, entries, checksum. Paged: prefix, bitmap, checksum, then pages that
    // each end in their own checksum.
    let total = prefix_len + 4 + entries_len;
    let block = src.metadata(data_block, total, "fixed array data block")?;
    let head_end = if paged { prefix_len + 4 } else { total } as usize;
    check_trailing_checksum(&block[..head_end], dat, "fixed array data block")?;
    let mut c = src.cursor(&block[..head_end], dat);
    c.expect(b"FADB", "fixed array data block")?;
    c.skip(2)?; // version, client
    c.address()?;
    let bitmap = c.bytes(bitmap_len as usize)?;
    let chunk_bytes = grid.chunk_bytes()?;
    let counts = grid.max_counts();
    let mut out = Vec::new();
    let mut pos = if paged { head_end } else { prefix_len as usize };
    let mut index = 0u64;
    for page in 0..pages.max(1) {
        let n = if paged {
            page_len.min(max_entries - index)
        } else {
            max_entries
        };
        let len = (n * es) as usize;
        let body = &block[pos..pos + len + if paged { 4 } else { 0 }];
        let body_at = dat + pos as u64;
        pos += body.len();
        // Pages are written lazily; bit `page` of the bitmap (most significant first) says
        // whether this one was.
        if paged {
            if bitmap[(page / 8) as usize] & (0x80 >> (page % 8)) == 0 {
                index += n;
                continue;
            }
            check_trailing_checksum(body, body_at, "fixed array page")?;
        }
        let mut e = src.cursor(&body[..len], body_at);
        for _ in 0..n {
            let entry =
                decode_element(&mut e.sub(es as usize)?, filtered, es as usize, chunk_bytes)?;
            if let Some((address, stored_size, filter_mask)) = entry {
                let scaled = unravel(index, &counts);
                if let Some(offset) = grid.offset_in_extent(&scaled) {
                    out.push(ChunkRecord {
                        offset,
                        address,
                        stored_size,
                        filter_mask,
                    });
                }
            }
            index += 1;
        }
    }
    Ok(out)
}
