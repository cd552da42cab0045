//! `sp` in the browser: the library compiled to WebAssembly behind a small request/response
//! protocol, for the page `web/dist/sp.html` (built by `scripts/build-web.sh`).
//!
//! The page runs this module in a Web Worker. A request is one JSON object naming an `op`
//! and its arguments; the answer is one JSON object, `{"ok": …}` or `{"error": sentence}`,
//! plus, for some ops, a binary side buffer (the heatmap's numbers). Files are read where
//! they lie: [`source::Bytes`] reads a dropped `File` through the page's `FileReaderSync`,
//! behind the library's [`BlockCache`](sp::io::BlockCache), so opening a 1 GB profile reads
//! its index and nothing else. Every number and every piece of text the page shows comes
//! from the library through [`session::Session`]; the page only lays them out.
//!
//! Everything but [`ffi`] (the wasm exports and the one imported read function) builds and
//! is tested natively, over files held in memory.

pub mod compare;
pub mod download;
#[cfg(target_arch = "wasm32")]
mod ffi;
pub mod merge;
pub mod messages;
pub mod profile;
pub mod raw;
pub mod rows;
pub mod runs;
pub mod selection;
pub mod session;
pub mod source;
pub mod timeline;
pub mod views;

pub use session::Session;
