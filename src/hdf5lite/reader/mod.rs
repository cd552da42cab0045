//! The reading API: [`File`], groups, datasets and attributes over any [`ReadAt`].

pub mod source;

pub use source::Source;
