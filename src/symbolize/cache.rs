//! The symbolizer of a whole run: each module found, read and indexed once, whatever
//! number of ranks sampled it (cached by its path), each address looked up once per
//! module, and each place interned, so counting samples never symbolizes.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use super::elf::Image;
use super::locate;
use super::module::ModuleDebug;
use super::Place;

/// Where to look beyond the defaults.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// `--search DIR`: more directories to find modules in.
    pub search: Vec<PathBuf>,
    /// `--debug-dir DIR`: more roots to find separate debug files under.
    pub debug_dirs: Vec<PathBuf>,
}

/// A place's id in [`Symbolizer::places`].
pub type PlaceId = u32;

/// The place of samples no module or debug info explains: `??` `??:0`.
pub const UNKNOWN: PlaceId = 0;

struct Loaded {
    shown: String,
    debug: Option<ModuleDebug>,
    outside_warned: bool,
}

/// Symbolizes the samples of any number of `.sps` files.
pub struct Symbolizer {
    options: Options,
    /// (directory of the `.sps`, recorded path) → module, or none.
    found: HashMap<(PathBuf, String), Option<usize>>,
    by_path: HashMap<PathBuf, usize>,
    modules: Vec<Loaded>,
    addresses: HashMap<(usize, u64), PlaceId>,
    places: Vec<Place>,
    place_ids: HashMap<Place, PlaceId>,
    warned: HashSet<String>,
    warnings: Vec<String>,
}

impl Symbolizer {
    pub fn new(options: Options) -> Symbolizer {
        let unknown = Place::unknown();
        Symbolizer {
            options,
            found: HashMap::new(),
            by_path: HashMap::new(),
            modules: Vec::new(),
            addresses: HashMap::new(),
            place_ids: HashMap::from([(unknown.clone(), UNKNOWN)]),
            places: vec![unknown],
            warned: HashSet::new(),
            warnings: Vec::new(),
        }
    }

    /// Every place met so far, by id.
    pub fn places(&self) -> &[Place] {
        &self.places
    }

    /// What went wrong, once per module: not found, unreadable, without debug info, or
    /// not the binary that ran.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    fn warn(&mut self, key: &str, message: String) {
        if self.warned.insert(key.to_owned()) {
            self.warnings.push(message);
        }
    }

    /// The module `recorded` (a path as the `.sps` in `sps_dir` records it), found and
    /// read on first use; `None` if it cannot be (said once in the warnings).
    pub fn module(&mut self, recorded: &str, sps_dir: &Path) -> Option<usize> {
        let key = (sps_dir.to_path_buf(), recorded.to_owned());
        if let Some(&found) = self.found.get(&key) {
            return found;
        }
        let found = self.find(recorded, sps_dir);
        self.found.insert(key, found);
        found
    }

    fn find(&mut self, recorded: &str, sps_dir: &Path) -> Option<usize> {
        let candidates = locate::module_candidates(recorded, sps_dir, &self.options.search);
        let Some(path) = locate::first_file(&candidates) else {
            // The kernel's vDSO is no file: nothing to say.
            if !recorded.starts_with("linux-vdso") && !recorded.starts_with("linux-gate") {
                self.warn(
                    recorded,
                    format!(
                        "module {recorded}: not found beside the .sps, in the working \
                         directory or a --search directory; its samples are under ??:0"
                    ),
                );
            }
            return None;
        };
        let canonical = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
        if let Some(&id) = self.by_path.get(&canonical) {
            return Some(id);
        }
        let shown = if path == Path::new(recorded) || path == sps_dir.join(recorded) {
            recorded.to_owned()
        } else {
            format!("{recorded} (as {})", path.display())
        };
        let debug = match self.load(&path) {
            Ok(debug) => {
                if !debug.has_lines() {
                    let why = if debug.is_stripped() {
                        "stripped (no debug info, no symbols)"
                    } else {
                        "no debug info"
                    };
                    self.warn(
                        &shown,
                        format!(
                            "module {shown}: {why}; its samples are under ??:0 \
                             (rebuild with -g, or install its debug file)"
                        ),
                    );
                }
                Some(debug)
            }
            Err(e) => {
                self.warn(
                    &shown,
                    format!("module {shown}: {e}; its samples are under ??:0"),
                );
                None
            }
        };
        let id = self.modules.len();
        self.modules.push(Loaded {
            shown,
            debug,
            outside_warned: false,
        });
        self.by_path.insert(canonical, id);
        Some(id)
    }

    fn load(&self, path: &Path) -> Result<ModuleDebug, String> {
        let bytes = std::fs::read(path).map_err(|e| format!("cannot read: {e}"))?;
        let main = guarded(|| Image::parse(&bytes))?.map_err(|e| e.to_string())?;
        let debug = if main.dwarf.is_none() {
            self.debug_file(path, &main)
        } else {
            None
        };
        guarded(|| ModuleDebug::new(main, debug))?.map_err(|e| e.to_string())
    }

    /// The module's separate debug file, by build id or `.gnu_debuglink`.
    fn debug_file(&self, path: &Path, main: &Image) -> Option<Image> {
        let roots = locate::debug_roots(&self.options.debug_dirs);
        if let Some(id) = &main.build_id {
            for candidate in locate::build_id_candidates(id, &roots) {
                let Ok(bytes) = std::fs::read(&candidate) else {
                    continue;
                };
                match guarded(|| Image::parse(&bytes)) {
                    Ok(Ok(image)) if image.build_id.as_ref() == Some(id) => return Some(image),
                    _ => continue,
                }
            }
        }
        if let Some((name, crc)) = &main.debuglink {
            for candidate in locate::debuglink_candidates(name, path, &roots) {
                let Ok(bytes) = std::fs::read(&candidate) else {
                    continue;
                };
                let mut sum = flate2::Crc::new();
                sum.update(&bytes);
                if sum.sum() != *crc {
                    continue;
                }
                if let Ok(Ok(image)) = guarded(|| Image::parse(&bytes)) {
                    return Some(image);
                }
            }
        }
        None
    }

    /// The place of a sample at `address` in module `module` (from [`Self::module`])
    /// loaded at `base`.
    pub fn place(&mut self, module: Option<usize>, address: u64, base: u64) -> PlaceId {
        let Some(id) = module else { return UNKNOWN };
        let Some(debug) = self.modules[id].debug.as_ref() else {
            return UNKNOWN;
        };
        let at = debug.file_address(address, base);
        if let Some(&place) = self.addresses.get(&(id, at)) {
            return place;
        }
        let inside = debug.contains(at);
        let place = guarded(|| debug.lookup(at)).unwrap_or_else(|_| Place::unknown());
        if !inside && !self.modules[id].outside_warned {
            self.modules[id].outside_warned = true;
            let shown = self.modules[id].shown.clone();
            self.warn(
                &format!("{shown} outside"),
                format!(
                    "module {shown}: sampled addresses fall outside it; is it the binary \
                     that ran?"
                ),
            );
        }
        let place = self.intern(place);
        self.addresses.insert((id, at), place);
        place
    }

    fn intern(&mut self, place: Place) -> PlaceId {
        if let Some(&id) = self.place_ids.get(&place) {
            return id;
        }
        let id = PlaceId::try_from(self.places.len()).unwrap_or(UNKNOWN);
        self.places.push(place.clone());
        self.place_ids.insert(place, id);
        id
    }
}

/// Runs `f`, turning a panic in a reader of damaged debug info into an error (the
/// readers check offsets; this is the belt to their braces).
fn guarded<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
        .map_err(|_| "damaged debug info".to_owned())
}
