//! Any bytes through each filter decoder: deflate, shuffle, Fletcher-32, n-bit,
//! scale-offset, lzf and zstd, alone and in a pipeline, with fuzzed client data. Every
//! decoder must end in `Ok` or an error without allocating past the chunk size it is
//! given (a compression bomb is malformed).
#![no_main]

use libfuzzer_sys::fuzz_target;
use sp::hdf5lite::filters::{decode_chunk, Filter, FilterId};

const IDS: [FilterId; 7] = [
    FilterId::DEFLATE,
    FilterId::SHUFFLE,
    FilterId::FLETCHER32,
    FilterId::NBIT,
    FilterId::SCALE_OFFSET,
    FilterId::LZF,
    FilterId::ZSTD,
];

fuzz_target!(|data: &[u8]| {
    // [filters: 2][mask][chunk length: 2][element size][client data count][u32 …][stored …]
    let Some((head, rest)) = data.split_first_chunk::<7>() else {
        return;
    };
    let pipeline: Vec<Filter> = [head[0], head[1]]
        .iter()
        .filter(|&&b| b != 0xff)
        .map(|&b| Filter {
            id: IDS[usize::from(b) % IDS.len()],
            name: None,
            flags: 0,
            client_data: Vec::new(),
        })
        .collect();
    let mask = u32::from(head[2]);
    let chunk_len = usize::from(u16::from_le_bytes([head[3], head[4]]));
    let element_size = usize::from(head[5]).max(1);
    let words = usize::from(head[6] % 24);
    let Some((cd, stored)) = rest.split_at_checked(4 * words) else {
        return;
    };
    let client_data: Vec<u32> = cd
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect();
    let mut pipeline = pipeline;
    for f in &mut pipeline {
        f.client_data = client_data.clone();
    }
    let _ = decode_chunk(&pipeline, mask, stored, chunk_len, element_size, 0);
});
