//! What the CLI prints for the synthetic golden profile — inspect JSON, the three exports,
//! the `ls --json` listing — kept in `tests/front_ends/` (`SP_BLESS=1` rewrites them). The
//! library-only test (`front-ends/`, also built for wasm32) must produce the same bytes
//! without the CLI and without a file system.

mod support;

const PROFILE: &str = "tests/golden/synthetic/expected/golden.h5";

fn check(name: &str, produced: Vec<u8>) {
    let path = support::repo().join("tests/front_ends").join(name);
    if std::env::var_os("SP_BLESS").is_some() {
        std::fs::write(&path, &produced).expect("bless");
    }
    let expected = std::fs::read(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (run with SP_BLESS=1)", path.display()));
    assert!(
        produced == expected,
        "{name} differs from what the CLI prints (SP_BLESS=1 to re-bless):\n{}",
        String::from_utf8_lossy(&produced)
    );
}

fn stdout(args: &[&str]) -> Vec<u8> {
    support::run_ok(support::sp().current_dir(support::repo()).args(args)).stdout
}

#[test]
fn cli_outputs_match_the_front_end_snapshots() {
    check(
        "synthetic_inspect.json",
        stdout(&["inspect", PROFILE, "--format", "json"]),
    );
    check("synthetic_ls.json", stdout(&["ls", PROFILE, "--json"]));
    let scratch = support::scratch_dir("front-end-snapshots");
    for format in ["chrome-trace", "speedscope", "json"] {
        let out = scratch.join(format!("{format}.json"));
        support::run_ok(
            support::sp()
                .current_dir(support::repo())
                .args(["export", format, PROFILE, "-o"])
                .arg(&out),
        );
        check(
            &format!("synthetic_export_{format}.json"),
            std::fs::read(&out).expect("export"),
        );
    }
    std::fs::remove_dir_all(scratch).ok();
}
