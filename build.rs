//! Records the commit `sp` is built from, for `sp --version`: `git rev-parse --short=12 HEAD`
//! (with `-dirty` when tracked files differ from it), else $SP_COMMIT, else "unknown" (a
//! source archive has no .git). Reruns only when HEAD or the branch it points to moves, so
//! `-dirty` is as of that moment: scripts/release.sh builds from a clean checkout.

use std::path::Path;
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
}
