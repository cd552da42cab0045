//! Sampled addresses of native code to source lines, in-process (the `addr2line`, `gimli`
//! and `object` crates; no `addr2line` or `llvm-symbolizer` subprocess), for `sp lines`.
//!
//! - [`elf`]: one ELF file from its bytes: load address, build id, `.gnu_debuglink`,
//!   symbols, DWARF 4 or 5 with compressed sections (`SHF_COMPRESSED`, `.zdebug_*`);
//! - [`names`]: function names chosen from the symbol table as binutils chooses them;
//! - [`module`]: lookups in one module, inlined frames included;
//! - native hosts only: [`locate`] (where a module and its debug file are) and
//!   [`cache`] (the [`Symbolizer`]: each module read once, each address looked up once).
//!
//! Addresses are taken relative to the module's recorded load address and its first
//! loaded page, so a position-independent module (offset from its base) and a
//! fixed-address `-no-pie` executable (the address itself; the reference subtracts the
//! base there too and gets `??:0`) both resolve.

pub mod elf;
pub mod module;
pub mod names;

#[cfg(not(target_arch = "wasm32"))]
pub mod cache;
#[cfg(not(target_arch = "wasm32"))]
pub mod locate;

#[cfg(not(target_arch = "wasm32"))]
pub use cache::{Options, PlaceId, Symbolizer, UNKNOWN};
pub use module::ModuleDebug;

/// One frame of a place: the function, and the file and line in it (0: unknown).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Frame {
    pub function: String,
    /// As the debug info names it (the compile directory joined), `??` when unknown.
    pub file: String,
    pub line: u32,
}

/// Where an address is: its frames, innermost first. The first is what `addr2line -f`
/// prints; the others are the callers it was inlined into, each at its call's line.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Place {
    pub frames: Vec<Frame>,
}

impl Place {
    /// `??` at `??:0`.
    pub fn unknown() -> Place {
        Place {
            frames: vec![Frame {
                function: "??".into(),
                file: "??".into(),
                line: 0,
            }],
        }
    }

    /// The innermost frame (none only in a place built empty by hand).
    pub fn innermost(&self) -> Option<&Frame> {
        self.frames.first()
    }
}
