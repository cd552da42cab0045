//! The plan [`FileWriter::finish_at`](super::FileWriter::finish_at) returns: where the file
//! ends, where each deferred dataset's data goes, and for chunked ones the chunk index to
//! write once the chunks are.

use crate::io::WriteAt;

use super::*;

/// Where [`FileWriter::finish_at`] put the file's end and each deferred dataset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement {
    /// Length of the whole file once the deferred contiguous data is written; chunks of
    /// chunked datasets are appended from here.
    pub eof: u64,
    pub(super) deferred: Vec<(ObjectId, DataPlace)>,
    pub(super) chunked: Vec<(ObjectId, ChunkPlan)>,
    pub(super) root_header: u64,
}

/// The planned chunk index of one deferred chunked dataset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkPlan {
    /// Elements in the dataset and per chunk; bytes per element.
    pub len: u64,
    pub chunk_elements: u64,
    pub element_size: u64,
    /// Address of the first B-tree node (leaves first, the root last).
    pub(super) btree_at: u64,
    /// Nodes per level, leaves first.
    pub(super) levels: Vec<u64>,
    pub(super) node_size: u64,
}

impl ChunkPlan {
    pub(super) fn new(len: u64, chunk_elements: u64, element_size: u64) -> Self {
        let chunks = len.div_ceil(chunk_elements);
        let mut levels = vec![chunks.div_ceil(CHUNK_NODE_CHILDREN as u64).max(1)];
        while let Some(&n) = levels.last().filter(|&&n| n > 1) {
            levels.push(n.div_ceil(CHUNK_NODE_CHILDREN as u64));
        }
        ChunkPlan {
            len,
            chunk_elements,
            element_size,
            btree_at: 0,
            levels,
            node_size: chunk_node_size(1, Widths::STANDARD.offset),
        }
    }

    /// Number of chunks.
    pub fn chunks(&self) -> u64 {
        self.len.div_ceil(self.chunk_elements)
    }

    /// Bytes of one chunk before filtering (edge chunks are stored at full size too).
    pub fn chunk_bytes(&self) -> u64 {
        self.chunk_elements * self.element_size
    }

    pub(super) fn btree_size(&self) -> u64 {
        self.levels.iter().sum::<u64>() * self.node_size
    }

    pub(super) fn root(&self) -> u64 {
        self.btree_at + self.btree_size() - self.node_size
    }

    /// Encodes every node of the tree over `chunks` (address and stored size, in order).
    fn encode(&self, chunks: &[StoredChunk]) -> Result<Vec<u8>> {
        let n = self.chunks();
        if chunks.len() as u64 != n {
            return Err(Error::usage(format!(
                "{} chunks given, the dataset has {n}",
                chunks.len()
            )));
        }
        let key = |c: u64| match chunks.get(c as usize) {
            Some(chunk) => (
                ChunkKey {
                    size: chunk.size,
                    filter_mask: 0,
                    offset: vec![c * self.chunk_elements],
                },
                0,
            ),
            // The final key: just past the last chunk, with the element size trailing.
            None => (
                ChunkKey {
                    size: 0,
                    filter_mask: 0,
                    offset: vec![n * self.chunk_elements],
                },
                self.element_size,
            ),
        };
        let mut e = Encoder::new(Widths::STANDARD);
        // Chunks covered by one node at each level.
        let mut span = 1u64;
        let mut first_node = self.btree_at;
        let mut below = 0u64;
        for (level, &count) in self.levels.iter().enumerate() {
            let child_span = span;
            span *= CHUNK_NODE_CHILDREN as u64;
            for j in 0..count {
                let lo = j * span;
                let hi = ((j + 1) * span).min(n);
                let mut children = Vec::with_capacity(CHUNK_NODE_CHILDREN);
                let mut c = lo;
                let mut child = 0u64;
                while c < hi {
                    let address = if level == 0 {
                        chunks[c as usize].address
                    } else {
                        below + (j * CHUNK_NODE_CHILDREN as u64 + child) * self.node_size
                    };
                    children.push((key(c).0, address));
                    c += child_span;
                    child += 1;
                }
                let (final_key, trailing) = key(hi);
                let at = |k: u64| first_node + k * self.node_size;
                ChunkNode {
                    level: level as u8,
                    left: (j > 0).then(|| at(j - 1)),
                    right: (j + 1 < count).then(|| at(j + 1)),
                    children: &children,
                    final_key: (&final_key, trailing),
                }
                .encode(&mut e, self.node_size)?;
            }
            below = first_node;
            first_node += count * self.node_size;
        }
        Ok(e.into_bytes())
    }
}

/// Where one filtered chunk was written, and its stored size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoredChunk {
    pub address: u64,
    pub size: u32,
}

/// The planned storage of one deferred dataset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DataPlace {
    /// Absolute address of the first byte; `None` when the dataset stores nothing.
    pub address: Option<u64>,
    /// Bytes the caller must write there.
    pub size: u64,
}

impl Placement {
    /// The chunk plan of deferred chunked dataset `id`.
    pub fn chunked(&self, id: ObjectId) -> Option<&ChunkPlan> {
        self.chunked
            .iter()
            .find(|(d, _)| *d == id)
            .map(|(_, plan)| plan)
    }

    /// Writes the chunk index of dataset `id` once its chunks are stored (in chunk order).
    pub fn write_chunk_index<S: WriteAt + ?Sized>(
        &self,
        out: &mut S,
        id: ObjectId,
        chunks: &[StoredChunk],
    ) -> Result<()> {
        let plan = self
            .chunked(id)
            .ok_or_else(|| Error::usage("not a deferred chunked dataset"))?;
        out.write_all_at(plan.btree_at, &plan.encode(chunks)?)?;
        Ok(())
    }

    /// Rewrites the superblock with the final end of file, after chunks were appended.
    pub fn write_eof<S: WriteAt + ?Sized>(&self, out: &mut S, eof: u64) -> Result<()> {
        if eof < self.eof {
            return Err(Error::usage("end of file before the planned data"));
        }
        out.write_all_at(0, &Superblock::v2(self.root_header, eof).encode_v2())?;
        Ok(())
    }

    /// The planned storage of deferred dataset `id`.
    pub fn data(&self, id: ObjectId) -> Option<DataPlace> {
        self.deferred
            .iter()
            .find(|(d, _)| *d == id)
            .map(|(_, place)| *place)
    }
}
