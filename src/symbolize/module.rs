//! One module's debug info, ready for lookups: the executable or library, and the
//! separate debug file when the DWARF lives there. [`ModuleDebug::lookup`] maps an address
//! (as the module sees it) to its frames, innermost first, named as binutils names them.

use gimli::{AttributeValue, UnitOffset};

use super::elf::{ElfError, Image, Reader};
use super::names;
use super::{Frame, Place};

/// A module with its DWARF context and the symbol table that names its functions.
pub struct ModuleDebug {
    first_load: u64,
    /// The image whose DWARF and symbols are looked in: the debug file, if the DWARF is
    /// there, else the module itself.
    image: Image,
    context: Option<addr2line::Context<Reader>>,
}

impl ModuleDebug {
    /// `main` is the module; `debug` its separate debug file, if one was found.
    pub fn new(mut main: Image, debug: Option<Image>) -> Result<ModuleDebug, ElfError> {
        let first_load = main.first_load;
        let image = match debug {
            Some(mut debug) if main.dwarf.is_none() && debug.dwarf.is_some() => {
                if debug.symbols.is_empty() {
                    debug.symbols = std::mem::take(&mut main.symbols);
                }
                debug
            }
            _ => main,
        };
        let mut image = image;
        let context = match image.dwarf.take() {
            Some(dwarf) => Some(
                addr2line::Context::from_dwarf(dwarf)
                    .map_err(|e| ElfError(format!("damaged debug info: {e}")))?,
            ),
            None => None,
        };
        Ok(ModuleDebug {
            first_load,
            image,
            context,
        })
    }

    /// Whether there is any DWARF to give lines (else every line is `??:0`).
    pub fn has_lines(&self) -> bool {
        self.context.is_some()
    }

    /// Whether `strip` removed the module's symbol table.
    pub fn is_stripped(&self) -> bool {
        self.image.stripped
    }

    /// The address in the file's own terms of a sample at `address` in a module loaded at
    /// `base` (`dladdr`'s `dli_fbase`, the start of its first mapped page). For a
    /// position-independent module that is the offset from `base`; a fixed-address
    /// (`-no-pie`) executable is mapped where it was linked, so the address itself.
    pub fn file_address(&self, address: u64, base: u64) -> u64 {
        address.wrapping_sub(base).wrapping_add(self.first_load)
    }

    /// Whether `address` (in the file's terms) falls in one of the module's sections.
    pub fn contains(&self, address: u64) -> bool {
        self.image.section_of(address).is_some()
    }

    /// The frames at `address` (in the file's terms), innermost first; `??` when unknown.
    pub fn lookup(&self, address: u64) -> Place {
        let section = self.image.section_of(address);
        let symbol = section.and_then(|s| names::find(&self.image.symbols, s, address));
        let mut frames = Vec::new();
        let mut outer: Option<UnitOffset<usize>> = None;
        if let Some(context) = &self.context {
            if let Ok(mut iter) = context.find_frames(address).skip_all_loads() {
                while let Ok(Some(frame)) = iter.next() {
                    let function = frame
                        .function
                        .as_ref()
                        .and_then(|f| f.raw_name().ok().map(|n| n.into_owned()));
                    let (file, line) = match &frame.location {
                        Some(loc) => (loc.file.map(str::to_owned), loc.line.unwrap_or(0)),
                        None => (None, 0),
                    };
                    outer = frame.dw_die_offset;
                    frames.push((function, file, line));
                }
            }
        }
        if frames.is_empty() {
            frames.push((None, None, 0));
            outer = None;
        }
        let last = frames.len() - 1;
        // The outermost frame is the function the code belongs to: binutils names it by
        // its symbol when that starts where the DWARF function starts (GCC's clones,
        // aliases), and by the symbol alone where there is no DWARF function.
        if let Some(found) = &symbol {
            let frame = &mut frames[last];
            let replace = match (&frame.0, outer) {
                (None, _) => true,
                (Some(_), Some(die)) => self
                    .function_start(address, die)
                    .is_some_and(|(start, linkage)| !linkage && start == found.symbol.address),
                (Some(_), None) => false,
            };
            if replace {
                frame.0 = Some(found.symbol.name.clone());
            }
            if last == 0 && frame.1.is_none() {
                frame.1 = found.file.map(str::to_owned);
            }
        }
        Place {
            frames: frames
                .into_iter()
                .map(|(function, file, line)| Frame {
                    function: function.unwrap_or_else(|| "??".into()),
                    file: file.unwrap_or_else(|| "??".into()),
                    line,
                })
                .collect(),
        }
    }

    /// Where the DWARF function at `die` starts (its low address or first range), and
    /// whether it (or what it specifies or instantiates) has a linkage name.
    fn function_start(&self, address: u64, die: UnitOffset<usize>) -> Option<(u64, bool)> {
        let context = self.context.as_ref()?;
        let unit = context.find_dwarf_and_unit(address).skip_all_loads()?;
        let entry = unit.entry(die).ok()?;
        let start = match entry.attr_value(gimli::DW_AT_low_pc).ok()? {
            Some(value) => unit.attr_address(value).ok()??,
            None => unit.die_ranges(&entry).ok()?.next().ok()??.begin,
        };
        let mut linkage = false;
        let mut at = Some(die);
        for _ in 0..4 {
            let Some(offset) = at.take() else { break };
            let Ok(entry) = unit.entry(offset) else { break };
            if entry
                .attr(gimli::DW_AT_linkage_name)
                .ok()
                .flatten()
                .is_some()
                || entry
                    .attr(gimli::DW_AT_MIPS_linkage_name)
                    .ok()
                    .flatten()
                    .is_some()
            {
                linkage = true;
                break;
            }
            for name in [gimli::DW_AT_specification, gimli::DW_AT_abstract_origin] {
                if let Ok(Some(AttributeValue::UnitRef(next))) = entry.attr_value(name) {
                    at = Some(next);
                }
            }
        }
        Some((start, linkage))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The -O2 PIE build of tests/golden-lines (its regenerate.sh).
    const APP: &[u8] = include_bytes!("../../tests/golden-lines/c_O2_pie/app");
    const NO_PIE: &[u8] = include_bytes!("../../tests/golden-lines/c_O0_nopie/app");

    fn symbol(image: &Image, name: &str) -> u64 {
        image
            .symbols
            .iter()
            .find(|s| s.name == name)
            .unwrap()
            .address
    }

    #[test]
    fn inlined_frames_come_innermost_first() {
        let image = Image::parse(APP).unwrap();
        assert_eq!(image.first_load, 0);
        let main = symbol(&image, "main");
        let module = ModuleDebug::new(image, None).unwrap();
        assert!(module.has_lines());
        // Somewhere in main the arithmetic loop, inlined: arithmetic then main.
        let place = (main..main + 0x200)
            .map(|a| module.lookup(a))
            .find(|p| p.frames[0].function == "arithmetic")
            .expect("arithmetic inlined into main");
        assert_eq!(place.frames.last().unwrap().function, "main");
        assert!(place.frames[0].file.ends_with("lines_demo.c"), "{place:?}");
        // A sampled address is its offset from the load address.
        assert_eq!(
            module.file_address(0x5555_0000_1234, 0x5555_0000_0000),
            0x1234
        );
    }

    #[test]
    fn fixed_address_executables_take_the_address_itself() {
        let image = Image::parse(NO_PIE).unwrap();
        assert_eq!(image.first_load, 0x400000);
        let main = symbol(&image, "main");
        let module = ModuleDebug::new(image, None).unwrap();
        assert_eq!(module.file_address(main, 0x400000), main);
        let frame = &module.lookup(main).frames[0];
        assert_eq!(frame.function, "main");
        assert!(frame.line > 0);
    }

    #[test]
    fn damaged_files_never_panic() {
        let mut lookups = 0;
        let step = APP.len() / 211 + 1;
        let damaged = (0..APP.len()).step_by(step).flat_map(|at| {
            let mut flipped = APP.to_vec();
            flipped[at] ^= 0x5a;
            flipped[(at + 7) % APP.len()] = 0xff;
            [APP[..at].to_vec(), flipped]
        });
        for bytes in damaged {
            let Ok(image) = Image::parse(&bytes) else {
                continue;
            };
            let Ok(module) = ModuleDebug::new(image, None) else {
                continue;
            };
            for a in (0x1000..0x3600).step_by(0x97) {
                lookups += module.lookup(a).frames.len();
            }
        }
        assert!(lookups > 0);
        assert!(Image::parse(b"\x7fELF").is_err());
        assert!(Image::parse(b"").is_err());
    }
}
