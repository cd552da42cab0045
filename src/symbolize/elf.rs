//! One module's ELF image and DWARF, read from its bytes (no file system: the page can
//! hand in a `Blob`'s bytes): the load address the samples are relative to, the build id
//! and `.gnu_debuglink` that name a separate debug file, the symbol table, and the DWARF
//! (4 or 5, compressed sections decompressed) behind an `addr2line::Context`.
//!
//! A damaged file is an [`ElfError`], never a panic: `object` and `gimli` check every
//! offset they read.

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use object::{Object, ObjectSection, ObjectSegment, ObjectSymbol, SectionFlags, SymbolFlags};

use super::names::Symbol;

/// The DWARF reader: sections owned behind an `Arc`, so a context outlives the file bytes.
pub type Reader = gimli::EndianArcSlice<gimli::RunTimeEndian>;

/// Why a module could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ElfError(pub String);

impl fmt::Display for ElfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ElfError {}

/// What the lookup needs of one ELF file, owned.
pub struct Image {
    /// The lowest `PT_LOAD` address, page-aligned: where `dladdr`'s base maps to. 0 for a
    /// position-independent file; the fixed address (0x400000) for a `-no-pie` executable.
    pub first_load: u64,
    pub build_id: Option<Vec<u8>>,
    /// `.gnu_debuglink`: the debug file's name and the CRC-32 of its bytes.
    pub debuglink: Option<(String, u32)>,
    /// The symbol table (`.symtab`, or `.dynsym` when stripped), in table order.
    pub symbols: Vec<Symbol>,
    /// No `.symtab`: `strip` was run on it.
    pub stripped: bool,
    /// Allocated sections: index, address, size (to find the section of an address).
    pub sections: Vec<(usize, u64, u64)>,
    /// The DWARF, when the file has a `.debug_info` with units.
    pub dwarf: Option<gimli::Dwarf<Reader>>,
}

const PAGE: u64 = 4096;
const SHF_ALLOC: u64 = 2;

impl Image {
    /// Reads an ELF file's image from its bytes.
    pub fn parse(bytes: &[u8]) -> Result<Image, ElfError> {
        // The ELF reader reads headers in place and needs them aligned: bytes that are
        // not (an `include_bytes!`, a slice at an odd offset) are copied to a fresh
        // allocation, which the allocator aligns.
        if bytes.as_ptr() as usize % 8 != 0 {
            let copy: Vec<u8> = bytes.to_vec();
            return Image::parse_aligned(copy.as_slice());
        }
        Image::parse_aligned(bytes)
    }

    fn parse_aligned(bytes: &[u8]) -> Result<Image, ElfError> {
        let file = object::File::parse(bytes)
            .map_err(|e| ElfError(format!("not an ELF file the reader takes: {e}")))?;
        if file.format() != object::BinaryFormat::Elf {
            return Err(ElfError("not an ELF file".into()));
        }
        let first_load = file
            .segments()
            .map(|s| s.address())
            .min()
            .map_or(0, |a| a & !(PAGE - 1));
        let build_id = file.build_id().ok().flatten().map(<[u8]>::to_vec);
        let debuglink = file
            .gnu_debuglink()
            .ok()
            .flatten()
            .map(|(name, crc)| (String::from_utf8_lossy(name).into_owned(), crc));
        let mut symbols: Vec<Symbol> = file.symbols().filter_map(symbol).collect();
        let stripped = symbols.is_empty();
        if stripped {
            symbols = file.dynamic_symbols().filter_map(symbol).collect();
        }
        let sections = file
            .sections()
            .filter(|s| matches!(s.flags(), SectionFlags::Elf { sh_flags } if sh_flags & SHF_ALLOC != 0))
            .map(|s| (s.index().0, s.address(), s.size()))
            .collect();
        let dwarf = load_dwarf(&file)?;
        Ok(Image {
            first_load,
            build_id,
            debuglink,
            symbols,
            stripped,
            sections,
            dwarf,
        })
    }

    /// The section holding `address`, if any.
    pub fn section_of(&self, address: u64) -> Option<usize> {
        self.sections
            .iter()
            .find(|&&(_, start, size)| address >= start && address - start < size)
            .map(|&(index, ..)| index)
    }
}

fn symbol(sym: object::Symbol<'_, '_>) -> Option<Symbol> {
    if sym.index().0 == 0 {
        return None;
    }
    let SymbolFlags::Elf { st_info, st_other } = sym.flags() else {
        return None;
    };
    Some(Symbol {
        name: String::from_utf8_lossy(sym.name_bytes().ok()?).into_owned(),
        address: sym.address(),
        size: sym.size(),
        section: sym.section_index().map_or(usize::MAX, |i| i.0),
        info: st_info,
        other: st_other,
    })
}

/// The DWARF sections, decompressed (`SHF_COMPRESSED` or `.zdebug_*`), or `None` when
/// there are no units.
fn load_dwarf(file: &object::File<'_>) -> Result<Option<gimli::Dwarf<Reader>>, ElfError> {
    let endian = if file.is_little_endian() {
        gimli::RunTimeEndian::Little
    } else {
        gimli::RunTimeEndian::Big
    };
    let has_info = file
        .section_by_name(".debug_info")
        .is_some_and(|s| s.size() > 0);
    if !has_info {
        return Ok(None);
    }
    let load = |id: gimli::SectionId| -> Result<Reader, ElfError> {
        let data = match file.section_by_name(id.name()) {
            Some(section) => section
                .uncompressed_data()
                .map_err(|e| ElfError(format!("cannot read {}: {e}", id.name())))?,
            None => Cow::Borrowed(&[][..]),
        };
        Ok(gimli::EndianArcSlice::new(Arc::from(&*data), endian))
    };
    gimli::Dwarf::load(load).map(Some)
}
