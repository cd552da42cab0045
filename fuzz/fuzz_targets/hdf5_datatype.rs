//! Any bytes as a datatype message (every class, nested to any depth), an attribute message
//! and a serialized dataspace selection (the target of a region reference): each parses to
//! a value or an error, and a parsed datatype prints.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sp::hdf5lite::raw::cursor::{Cursor, Widths};
use sp::hdf5lite::raw::messages::{datatype, Attribute};
use sp::hdf5lite::reader::Selection;

fuzz_target!(|data: &[u8]| {
    if let Ok(dt) = datatype::parse(&mut Cursor::new(data, 0, Widths::STANDARD)) {
        let _ = dt.to_string();
        let _ = dt.element_size();
    }
    let _ = Attribute::parse(&mut Cursor::new(data, 0, Widths::STANDARD));
    let _ = Selection::parse(&mut Cursor::new(data, 0, Widths::STANDARD), 4096);
});
