//! The WebAssembly boundary, and the crate's only unsafe code: plain `extern "C"` exports
//! the page's hand-written glue calls, and one imported function that reads a slice of a
//! `File` (`FileReaderSync` on `File.slice` in the worker).
//!
//! Protocol: the glue copies a UTF-8 JSON request into memory from [`sp_alloc`], calls
//! [`sp_call`] (which frees it) and reads the answer (`sp_out_ptr`, the returned length) and
//! the binary side buffer (`sp_bin_ptr`, `sp_bin_len`) before its next call. A file to save
//! (an export) arrives during the call, in parts, through the imported `save_part`.
#![allow(unsafe_code)]

use std::cell::RefCell;
use std::io;

use crate::session::Session;

#[link(wasm_import_module = "sp")]
extern "C" {
    /// Copies `len` bytes of the registered `File` `handle` from `offset` into `dst`;
    /// returns 0 on success.
    fn blob_read(handle: u32, offset: f64, len: u32, dst: *mut u8) -> u32;

    /// Copies `len` bytes at `src` into the page's next part of the file being saved.
    fn save_part(src: *const u8, len: u32);
}

/// Hands one part of a file being saved to the page.
fn emit_part(part: &[u8]) {
    // Parts are at most a few MiB (`download::PART` plus one write).
    let len = u32::try_from(part.len()).unwrap_or(u32::MAX);
    // SAFETY: `part` is a live region of this module's memory of at least `len` bytes;
    // the import copies it out before returning and keeps no reference.
    unsafe { save_part(part.as_ptr(), len) }
}

/// Fills `buf` from `offset` of the page's `File` `handle`.
pub fn read_blob(handle: u32, offset: u64, buf: &mut [u8]) -> io::Result<()> {
    let len = u32::try_from(buf.len()).map_err(|_| io::Error::other("read too large"))?;
    // Offsets up to 2^53 are exact in an f64, far past any file a browser can hold.
    // SAFETY: `buf` is a live, writable region of exactly `len` bytes of this module's
    // memory; the import writes at most `len` bytes into it and keeps no reference.
    let status = unsafe { blob_read(handle, offset as f64, len, buf.as_mut_ptr()) };
    if status == 0 {
        Ok(())
    } else {
        Err(io::Error::other("the browser could not read the file"))
    }
}

thread_local! {
    static SESSION: RefCell<Session> = RefCell::new(Session::default());
    static OUT: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    static BIN: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// A buffer of `len` bytes for the glue to write a request into.
#[no_mangle]
pub extern "C" fn sp_alloc(len: usize) -> *mut u8 {
    let mut v = Vec::<u8>::with_capacity(len);
    let p = v.as_mut_ptr();
    std::mem::forget(v);
    p
}

/// Runs the request in `sp_alloc`'s buffer `ptr` of `len` bytes (freeing it); returns the
/// length of the answer at `sp_out_ptr`.
#[no_mangle]
pub extern "C" fn sp_call(ptr: *mut u8, len: usize) -> usize {
    // SAFETY: `ptr` came from `sp_alloc(len)` and the glue filled all `len` bytes; the
    // vector takes the allocation back and frees it.
    let request = unsafe { Vec::from_raw_parts(ptr, len, len) };
    let text = String::from_utf8_lossy(&request);
    let mut bin = Vec::new();
    let answer = SESSION.with(|s| {
        s.borrow_mut()
            .call_with_parts(&text, &mut bin, &mut |part| emit_part(part))
    });
    BIN.with(|b| *b.borrow_mut() = bin);
    OUT.with(|o| {
        let mut o = o.borrow_mut();
        *o = answer.into_bytes();
        o.len()
    })
}

/// The last answer.
#[no_mangle]
pub extern "C" fn sp_out_ptr() -> *const u8 {
    OUT.with(|o| o.borrow().as_ptr())
}

/// The last answer's binary side buffer.
#[no_mangle]
pub extern "C" fn sp_bin_ptr() -> *const u8 {
    BIN.with(|b| b.borrow().as_ptr())
}

/// Length of the last answer's binary side buffer.
#[no_mangle]
pub extern "C" fn sp_bin_len() -> usize {
    BIN.with(|b| b.borrow().len())
}
