//! How many reads of the source the reader makes: the browser page reads a `Blob`, where
//! each read costs about a millisecond however small, so a range over many chunks must be
//! a few reads, and walking the same objects again must not read them again.

use std::cell::Cell;

use sp::hdf5lite::reader::File;
use sp::io::ReadAt;

/// A source that counts the reads made through it.
struct Counting {
    bytes: Vec<u8>,
    reads: Cell<u64>,
}

impl ReadAt for Counting {
    fn len(&self) -> u64 {
        self.bytes.len() as u64
    }

    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<()> {
        self.reads.set(self.reads.get() + 1);
        self.bytes.read_exact_at(offset, buf)
    }
}

fn corpus(name: &str) -> Counting {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/corpus")
        .join(name);
    Counting {
        bytes: std::fs::read(path).unwrap(),
        reads: Cell::new(0),
    }
}

/// 1490 chunks adjacent in the file (but for the B-tree nodes libhdf5 puts between every
/// 64 of them), read as one range: at most two reads of the data (the chunk index is
/// walked once, on the first read).
#[test]
fn a_range_over_1490_adjacent_chunks_is_a_read_or_two() {
    let source = corpus("chunked_earliest.h5");
    let file = File::open(&source).unwrap();
    let d = file.dataset("/many_chunks").unwrap();
    let first = d.read_raw_range(5, 14_890).unwrap();
    let with_index = source.reads.get();
    source.reads.set(0);
    let again = d.read_raw_range(5, 14_890).unwrap();
    assert!(
        source.reads.get() <= 2,
        "{} reads of the data",
        source.reads.get()
    );
    assert_eq!(first, again);
    let values: Vec<i64> = again
        .chunks_exact(8)
        .map(|b| i64::from_le_bytes(b.try_into().unwrap()))
        .collect();
    assert_eq!(values, (5..14_895).collect::<Vec<i64>>());
    // The index: a version 1 B-tree of 1490 records, 64 to a node: 25 nodes, one read
    // each, plus the data and the headers of the path.
    assert!(with_index <= 40, "{with_index} reads with the index walk");
}

/// Opening objects by path again reads nothing again: object headers and link tables are
/// kept after the first read.
#[test]
fn walking_the_same_paths_again_reads_nothing() {
    let source = corpus("groups_earliest.h5");
    let file = File::open(&source).unwrap();
    let paths = ["/few/x", "/many/d123", "/many/d299", "/g07"];
    for p in paths {
        file.object(p).unwrap();
    }
    let first = source.reads.get();
    source.reads.set(0);
    for p in paths {
        file.object(p).unwrap();
    }
    assert_eq!(source.reads.get(), 0, "after {first} reads the first time");
    // Each object header (prefix, first chunk and messages), B-tree node, symbol-table
    // node and local heap is one read: /many alone has 300 links in 38 symbol-table
    // nodes. (Two reads per structure made this 198.)
    assert!(first <= 110, "{first} reads");
}
