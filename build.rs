//! Records the commit `sp` is built from, for `sp --version`: `git rev-parse --short=12 HEAD`
//! (with `-dirty` when tracked files differ from it), else $SP_COMMIT, else "unknown" (a
//! source archive has no .git). Reruns only when HEAD or the branch it points to moves, so
//! `-dirty` is as of that moment: scripts/release.sh builds from a clean checkout.
//!
//! Also carries the page, `sp.html`, inside the binary (gzipped, `cfg(sp_page)`), so `sp
//! report` needs no separate file: $SP_PAGE_BUILD names a built page to carry (what
//! scripts/release.sh and CI pass), `off` carries none; unset, a release build for a native
//! target builds the page with scripts/build-web.sh when the wasm32 target is installed.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    out.status.success().then(|| text.trim().to_owned())
}

fn main() {
    println!("cargo:rerun-if-env-changed=SP_COMMIT");
    let here = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default();
    // Only this checkout's own history: an unpacked source archive may sit inside another repo.
    let ours = git(&["rev-parse", "--show-toplevel"]).is_some_and(|top| {
        Path::new(&top).canonicalize().ok() == Path::new(&here).canonicalize().ok()
    });
    let commit = ours
        .then(|| git(&["rev-parse", "--short=12", "HEAD"]))
        .flatten();
    let commit = match commit {
        Some(hash) => {
            let branch = git(&["symbolic-ref", "-q", "HEAD"]).unwrap_or_default();
            for name in ["HEAD", branch.as_str(), "packed-refs"].map(str::to_owned) {
                let path = git(&["rev-parse", "--git-path", &name]).filter(|_| !name.is_empty());
                // A missing file would rerun this script on every build: a packed ref has none.
                if let Some(path) = path.filter(|p| Path::new(p).exists()) {
                    println!("cargo:rerun-if-changed={path}");
                }
            }
            let clean = git(&["status", "--porcelain", "--untracked-files=no"])
                .is_some_and(|s| s.is_empty());
            if clean {
                hash
            } else {
                format!("{hash}-dirty")
            }
        }
        None => std::env::var("SP_COMMIT").unwrap_or_else(|_| "unknown".to_owned()),
    };
    println!("cargo:rustc-env=SP_COMMIT={commit}");
    carry_page(Path::new(&here));
}

/// Writes `$OUT_DIR/sp.html.gz` and sets `cfg(sp_page)` when there is a page to carry.
fn carry_page(here: &Path) {
    println!("cargo:rustc-check-cfg=cfg(sp_page)");
    println!("cargo:rerun-if-env-changed=SP_PAGE_BUILD");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let page = match std::env::var("SP_PAGE_BUILD") {
        Ok(v) if v == "off" => return,
        Ok(path) => {
            println!("cargo:rerun-if-changed={path}");
            PathBuf::from(path)
        }
        Err(_) => match build_page(here, &out) {
            Some(page) => page,
            None => return,
        },
    };
    let html = match std::fs::read(&page) {
        Ok(html) => html,
        Err(e) => panic!("SP_PAGE_BUILD={}: {e}", page.display()),
    };
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    gz.write_all(&html).expect("gzip in memory");
    std::fs::write(out.join("sp.html.gz"), gz.finish().expect("gzip in memory"))
        .expect("write to OUT_DIR");
    println!("cargo:rustc-cfg=sp_page");
}

/// Builds the page into `out` for a release build of a native target with the wasm32
/// target installed; `None` (with a warning where a page was expected) otherwise.
fn build_page(here: &Path, out: &Path) -> Option<PathBuf> {
    let target = std::env::var("TARGET").unwrap_or_default();
    if std::env::var("PROFILE").ok()? != "release" || target.starts_with("wasm32") {
        return None;
    }
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let libdir = Command::new(rustc)
        .args([
            "--print",
            "target-libdir",
            "--target",
            "wasm32-unknown-unknown",
        ])
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())?;
    if !Path::new(libdir.trim()).is_dir() {
        println!(
            "cargo:warning=sp.html is not built in: the wasm32 target is missing \
             (rustup target add wasm32-unknown-unknown), so sp report needs --page"
        );
        return None;
    }
    for dir in [
        "src",
        "web/src",
        "web/page",
        "web/Cargo.toml",
        "scripts/build-web.sh",
    ] {
        println!("cargo:rerun-if-changed={dir}");
    }
    // Its own target directory: the outer build holds the lock of this one. The outer
    // target's flags (CARGO_ENCODED_RUSTFLAGS) are not the wasm build's.
    let target_dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| here.join("target"))
        .join("page");
    let page = out.join("sp.html");
    let built = Command::new("bash")
        .arg(here.join("scripts/build-web.sh"))
        .env("CARGO_TARGET_DIR", &target_dir)
        .env("SP_WEB_OUT", &page)
        .env("SP_WEB_BUDGET", "off")
        .env("SP_PAGE_BUILD", "off")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .output();
    match built {
        Ok(o) if o.status.success() => Some(page),
        Ok(o) => {
            let why = String::from_utf8_lossy(&o.stderr);
            let why = why.lines().last().unwrap_or("").to_owned();
            println!("cargo:warning=sp.html is not built in: scripts/build-web.sh failed: {why}");
            None
        }
        Err(e) => {
            println!("cargo:warning=sp.html is not built in: cannot run bash: {e}");
            None
        }
    }
}
