//! Any bytes as an HDF5 file: open, walk every group, read every attribute and dataset under
//! tight limits. Errors are fine; panics, hangs and huge allocations are not.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sp::hdf5lite::reader::{File, LinkKind, Object};
use sp::hdf5lite::Limits;

fuzz_target!(|data: &[u8]| {
    let limits = Limits {
        max_metadata_bytes: 1 << 20,
        max_chunk_bytes: 1 << 20,
        max_read_bytes: 4 << 20,
        max_depth: 16,
        max_header_chunks: 64,
        max_object_entries: 4096,
    };
    let Ok(file) = File::open_with_limits(data, limits) else {
        return;
    };
    let mut pending = vec!["/".to_owned()];
    let mut visited = 0;
    while let Some(path) = pending.pop() {
        visited += 1;
        if visited > 256 {
            return;
        }
        match file.object(&path) {
            Ok(Object::Group(group)) => {
                if let Ok(attrs) = group.attributes() {
                    for a in attrs {
                        let _ = a.value(&file);
                    }
                }
                if let Ok(links) = group.links() {
                    for link in links {
                        if matches!(link.kind, LinkKind::Hard(_)) {
                            pending.push(format!("{}/{}", path.trim_end_matches('/'), link.name));
                        }
                    }
                }
            }
            Ok(Object::Dataset(ds)) => {
                if let Ok(attrs) = ds.attributes() {
                    for a in attrs {
                        let _ = a.value(&file);
                    }
                }
                let _ = ds.read_values();
            }
            Err(_) => {}
        }
    }
});
