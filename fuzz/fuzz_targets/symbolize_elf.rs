//! Any bytes as a module for `sp lines`: the ELF, symbol and DWARF readers and the lookup
//! must not panic (a damaged binary is an error or `??`). Seed with a real binary, e.g.
//! tests/golden-lines/c_O2_pie/app.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sp::symbolize::{elf::Image, ModuleDebug};

fuzz_target!(|data: &[u8]| {
    let Ok(image) = Image::parse(data) else { return };
    let Ok(module) = ModuleDebug::new(image, None) else { return };
    for address in (0..0x4000u64).step_by(0x33) {
        let _ = module.lookup(address);
    }
});
