//! `sp --version` names the version of Cargo.toml and the commit the binary was built from
//! (build.rs): `sp 0.1.0 (0123456789ab)`, `-dirty` after it for uncommitted changes, or
//! `unknown` (or $SP_COMMIT) when built from a source archive without git.

mod support;

#[test]
fn version_names_the_cargo_version_and_the_commit() {
    let out = support::run_ok(support::sp().arg("--version"));
    let text = String::from_utf8(out.stdout).expect("utf-8");
    let line = text
        .strip_suffix('\n')
        .expect("one line, ending in a newline");
    let prefix = format!("sp {} (", env!("CARGO_PKG_VERSION"));
    let commit = line
        .strip_prefix(&prefix)
        .and_then(|rest| rest.strip_suffix(')'))
        .unwrap_or_else(|| panic!("{line:?} is not `{prefix}COMMIT)`"));
    let hash = commit.strip_suffix("-dirty").unwrap_or(commit);
    let git = std::process::Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(support::repo())
        .output();
    match git {
        // In a checkout, the commit is HEAD's (the binary is rebuilt when HEAD moves).
        Ok(git) if git.status.success() => {
            assert_eq!(
                hash,
                String::from_utf8_lossy(&git.stdout).trim(),
                "{line:?}"
            );
        }
        _ => assert!(!commit.is_empty(), "{line:?}"),
    }
    assert!(
        hash == "unknown" || (hash.len() == 12 && hash.bytes().all(|b| b.is_ascii_hexdigit())),
        "{line:?}: the commit is neither a 12-digit hash nor unknown"
    );
}
