//! Function names from the ELF symbol table, chosen as binutils chooses them, so that
//! `sp lines` names functions as the reference (binutils `addr2line -f`) does: GCC's clones
//! (`relax.0`, `__ieee754_exp_fma`) and aliases by their symbol, code without DWARF by the
//! symbol that covers it, and its file by the `STT_FILE` symbol before a local one.
//!
//! The rules are bfd's `elf_find_function` and `better_fit`: among the symbols of the
//! section holding the address that start at or before it, the closest start wins; at the
//! same start, one that covers the address, then a function over another kind, a typed
//! symbol over an untyped one, and the smaller; a tie keeps the first in table order.

/// One symbol as the lookup needs it (`STT_FILE` symbols included, in table order).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Symbol {
    pub name: String,
    pub address: u64,
    pub size: u64,
    /// The section index it is defined in (`st_shndx`).
    pub section: usize,
    /// `st_info`: type in the low nibble, binding in the high one.
    pub info: u8,
    /// `st_other`: visibility in the low two bits.
    pub other: u8,
}

const STT_NOTYPE: u8 = 0;
const STT_OBJECT: u8 = 1;
const STT_FUNC: u8 = 2;
const STT_SECTION: u8 = 3;
const STT_FILE: u8 = 4;
const STT_COMMON: u8 = 5;
const STT_TLS: u8 = 6;
const STT_GNU_IFUNC: u8 = 10;
const STB_LOCAL: u8 = 0;
const STV_HIDDEN: u8 = 2;

impl Symbol {
    fn kind(&self) -> u8 {
        self.info & 0xf
    }

    fn is_local(&self) -> bool {
        self.info >> 4 == STB_LOCAL
    }

    fn is_function(&self) -> bool {
        matches!(self.kind(), STT_FUNC | STT_GNU_IFUNC)
    }

    /// bfd's `_bfd_elf_maybe_function_sym`: the size it counts the symbol as covering in
    /// `section` (a zero size counts as 1), or `None` if it is no code symbol there.
    fn code_size(&self, section: usize) -> Option<u64> {
        let kind = self.kind();
        if matches!(
            kind,
            STT_SECTION | STT_FILE | STT_OBJECT | STT_COMMON | STT_TLS
        ) || self.section != section
        {
            return None;
        }
        // The annobin plugin's markers: hidden, local, untyped and empty.
        if self.size == 0 && self.is_local() && kind == STT_NOTYPE && self.other & 3 == STV_HIDDEN {
            return None;
        }
        Some(self.size.max(1))
    }
}

/// The symbol binutils names the code at `address` (in `section`) by, with the source
/// file it gives when the debug info gives none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found<'a> {
    pub symbol: &'a Symbol,
    pub file: Option<&'a str>,
}

/// Looks `address` up in `symbols` (the whole table, in order) as bfd does.
pub fn find(symbols: &[Symbol], section: usize, address: u64) -> Option<Found<'_>> {
    #[derive(PartialEq)]
    enum State {
        Nothing,
        Symbol,
        FileAfterSymbol,
    }
    let mut state = State::Nothing;
    let mut file: Option<&str> = None;
    let mut best: Option<(&Symbol, u64, Option<&str>)> = None;
    for sym in symbols {
        if sym.kind() == STT_FILE {
            file = Some(&sym.name);
            if state == State::Symbol {
                state = State::FileAfterSymbol;
            }
            continue;
        }
        if state == State::Nothing {
            state = State::Symbol;
        }
        let Some(size) = sym.code_size(section) else {
            continue;
        };
        let better = match best {
            None => sym.address <= address,
            Some((cur, cur_size, _)) => better_fit(cur, cur_size, sym, size, address),
        };
        if better {
            let named = file.filter(|_| sym.is_local() || state != State::FileAfterSymbol);
            best = Some((sym, size, named));
        } else if let Some((cur, cur_size, named)) = best {
            // A symbol starting past the address but inside the best one shortens it.
            if sym.address > address
                && sym.address > cur.address
                && sym.address < cur.address + cur_size
            {
                best = Some((cur, sym.address - cur.address, named));
            }
        }
    }
    best.map(|(symbol, _, file)| Found { symbol, file })
}

/// bfd's `better_fit`: whether `sym` (covering `size`) names `address` better than `cur`.
fn better_fit(cur: &Symbol, cur_size: u64, sym: &Symbol, size: u64, address: u64) -> bool {
    if sym.address > address || sym.address < cur.address {
        return false;
    }
    if sym.address > cur.address {
        return true;
    }
    if cur.address.saturating_add(cur_size) < address {
        return size > cur_size;
    }
    if sym.address.saturating_add(size) < address {
        return false;
    }
    if cur.is_function() != sym.is_function() {
        return sym.is_function();
    }
    if (cur.kind() == STT_NOTYPE) != (sym.kind() == STT_NOTYPE) {
        return cur.kind() == STT_NOTYPE;
    }
    size < cur_size
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sym(name: &str, address: u64, size: u64, info: u8) -> Symbol {
        Symbol {
            name: name.into(),
            address,
            size,
            section: 1,
            info,
            other: 0,
        }
    }

    const LOCAL_FUNC: u8 = STT_FUNC;
    const GLOBAL_FUNC: u8 = 0x10 | STT_FUNC;
    const FILE: u8 = STT_FILE;

    #[test]
    fn the_closest_start_wins_and_a_local_keeps_its_file() {
        let table = [
            sym("a.c", 0, 0, FILE),
            sym("helper", 0x100, 0x20, LOCAL_FUNC),
            sym("b.c", 0, 0, FILE),
            sym("main", 0x200, 0x80, GLOBAL_FUNC),
        ];
        let found = find(&table, 1, 0x110).unwrap();
        assert_eq!(
            (found.symbol.name.as_str(), found.file),
            ("helper", Some("a.c"))
        );
        // A global after a file that follows other symbols gets no file.
        let found = find(&table, 1, 0x210).unwrap();
        assert_eq!((found.symbol.name.as_str(), found.file), ("main", None));
        assert!(find(&table, 1, 0x50).is_none());
        assert!(find(&table, 2, 0x110).is_none());
    }

    #[test]
    fn aliases_keep_the_first_and_functions_beat_untyped() {
        let table = [
            sym("__exp", 0x100, 0x40, GLOBAL_FUNC),
            sym("__GI___exp", 0x100, 0x40, LOCAL_FUNC),
            sym("label", 0x100, 0x40, STT_NOTYPE),
        ];
        assert_eq!(find(&table, 1, 0x120).unwrap().symbol.name, "__exp");
        let table = [
            sym("label", 0x100, 0x40, STT_NOTYPE),
            sym("f", 0x100, 0x40, LOCAL_FUNC),
        ];
        assert_eq!(find(&table, 1, 0x120).unwrap().symbol.name, "f");
    }

    #[test]
    fn a_later_start_past_the_address_shortens_the_best() {
        // "big" claims 0x100..0x300 but "next" starts at 0x200: 0x250 is past "big".
        let table = [
            sym("big", 0x100, 0x200, LOCAL_FUNC),
            sym("next", 0x200, 0x10, LOCAL_FUNC),
            sym("wide", 0x100, 0x300, LOCAL_FUNC),
        ];
        assert_eq!(find(&table, 1, 0x150).unwrap().symbol.name, "big");
        assert_eq!(find(&table, 1, 0x250).unwrap().symbol.name, "next");
    }
}
