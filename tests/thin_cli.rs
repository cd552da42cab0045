//! The command line stays a thin shell over the library: `src/cli`, every file below it,
//! holds at most 2,000 lines (what the commands compute belongs in the library, where the
//! page and the terminal UI reach it too).

mod support;

use std::path::Path;

fn lines_below(dir: &Path) -> usize {
    let mut total = 0;
    for entry in std::fs::read_dir(dir).expect("src/cli") {
        let path = entry.expect("src/cli entry").path();
        if path.is_dir() {
            total += lines_below(&path);
        } else if path.extension().is_some_and(|e| e == "rs") {
            total += std::fs::read_to_string(&path)
                .expect("source")
                .lines()
                .count();
        }
    }
    total
}

#[test]
fn the_cli_is_at_most_2000_lines() {
    let lines = lines_below(&support::repo().join("src/cli"));
    assert!(lines > 1000, "{lines} lines: not the CLI's sources");
    assert!(lines <= 2000, "src/cli has {lines} lines, over 2,000");
}
