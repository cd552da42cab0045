//! `sp tui` end to end, through a real pseudo-terminal: the binary starts on a golden
//! profile, keys are typed, the screen is read back by a VT100 parser and compared with
//! `sp inspect`'s numbers; after `q` (and after SIGTERM while percentiles are computed) the
//! terminal must be back: alternate screen left, cursor shown, exit status as documented.

mod support;

use std::io::{Read, Write};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use portable_pty::{native_pty_system, CommandBuilder, PtySize};
use sp::analysis::units::{count_text, duration_text};

const PROFILE: &str = "tests/golden/merge_zstd/expected/merged.h5";

/// A running `sp tui` on a pty and everything it has written.
struct Session {
    child: Box<dyn portable_pty::Child + Send + Sync>,
    writer: Box<dyn Write + Send>,
    output: Arc<Mutex<Vec<u8>>>,
}

impl Session {
    fn start(args: &[&str]) -> Session {
        let pair = native_pty_system()
            .openpty(PtySize {
                rows: 24,
                cols: 80,
                pixel_width: 0,
                pixel_height: 0,
            })
            .unwrap();
        let bin = std::env::var("SP_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_sp").into());
        let mut cmd = CommandBuilder::new(bin);
        cmd.args(args);
        cmd.cwd(support::repo());
        cmd.env("TERM", "xterm-256color");
        let child = pair.slave.spawn_command(cmd).unwrap();
        drop(pair.slave);
        let mut reader = pair.master.try_clone_reader().unwrap();
        let writer = pair.master.take_writer().unwrap();
        let output = Arc::new(Mutex::new(Vec::new()));
        let sink = output.clone();
        std::thread::spawn(move || {
            let _master = pair.master;
            let mut buf = [0u8; 4096];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        });
        Session {
            child,
            writer,
            output,
        }
    }

    fn parser(&self) -> vt100::Parser {
        let mut p = vt100::Parser::new(24, 80, 0);
        p.process(&self.output.lock().unwrap());
        p
    }

    /// The screen once it contains `text` (panics after 10 s with the screen).
    fn wait_for(&self, text: &str) -> String {
        let start = Instant::now();
        loop {
            let screen = self.parser().screen().contents();
            if screen.contains(text) {
                return screen;
            }
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "no {text:?} on the screen:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn keys(&mut self, keys: &str) {
        self.writer.write_all(keys.as_bytes()).unwrap();
        self.writer.flush().unwrap();
    }

    /// The exit status, waiting up to 10 s.
    fn exit(&mut self) -> u32 {
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                // Let the reader drain the last bytes.
                std::thread::sleep(Duration::from_millis(100));
                return status.exit_code();
            }
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "sp tui did not exit"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The terminal is as it was: main screen, cursor shown, and the last mode switches
    /// in the byte stream are the ones that restore.
    fn assert_restored(&self) {
        let parser = self.parser();
        assert!(
            !parser.screen().alternate_screen(),
            "still on the alternate screen"
        );
        assert!(!parser.screen().hide_cursor(), "the cursor is still hidden");
        let bytes = self.output.lock().unwrap().clone();
        let text = String::from_utf8_lossy(&bytes);
        let entered = text
            .rfind("\x1b[?1049h")
            .expect("the alternate screen was entered");
        let left = text
            .rfind("\x1b[?1049l")
            .expect("the alternate screen was left");
        assert!(left > entered);
        assert!(
            text.rfind("\x1b[?25h").unwrap_or(0) > entered,
            "cursor not shown again"
        );
    }
}

/// `sp inspect`'s rows: (name, calls, total in seconds).
fn inspect_rows() -> Vec<(String, u64, Option<f64>)> {
    let out = support::run_ok(
        support::sp()
            .current_dir(support::repo())
            .args(["inspect", PROFILE, "--format", "json"]),
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    doc["files"][0]["regions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["name"].as_str().unwrap().to_string(),
                r["calls"].as_u64().unwrap(),
                r["total"].as_f64(),
            )
        })
        .collect()
}

#[test]
fn keys_screens_and_the_terminal_restored_on_quit() {
    let mut s = Session::start(&["tui", PROFILE]);
    s.wait_for("Wall time");
    // Regions: the rows of sp inspect, in its order, with its numbers.
    s.keys("\t");
    let screen = s.wait_for("region (call tree)");
    let lines: Vec<&str> = screen
        .lines()
        .skip(2)
        .filter(|l| !l.contains("(own)") && !l.trim().is_empty())
        .collect();
    let rows = inspect_rows();
    assert!(rows.len() > 3);
    for ((name, calls, total), line) in rows.iter().zip(&lines) {
        assert!(
            line.split_whitespace().any(|w| w == name),
            "{line:?} is not {name}"
        );
        assert!(
            line.contains(&count_text(*calls)),
            "{line:?}: calls {calls}"
        );
        assert!(
            line.contains(&duration_text(*total)),
            "{line:?}: total {total:?}"
        );
    }
    // Help, a filter, the ranks view, then quit.
    s.keys("?");
    s.wait_for("this help");
    s.keys("\x1b");
    s.keys("/inner\r");
    s.wait_for("/inner");
    s.keys("4");
    s.wait_for("excess");
    s.keys("q");
    assert_eq!(s.exit(), 0);
    s.assert_restored();
}

#[test]
fn sigterm_while_computing_restores_the_terminal() {
    let mut s = Session::start(&["tui", PROFILE]);
    s.wait_for("Wall time");
    // Percentiles of every shown row, in the background; SIGTERM at once.
    s.keys("\tp");
    std::thread::sleep(Duration::from_millis(30));
    let pid = s.child.process_id().unwrap();
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    assert_eq!(s.exit(), 128 + 15);
    s.assert_restored();
}

#[test]
fn piped_stdout_and_a_missing_file_fail_before_the_screen() {
    let out = support::sp()
        .args(["tui", PROFILE])
        .current_dir(support::repo())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("sp inspect"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");

    let mut s = Session::start(&["tui", "no/such/file.h5"]);
    assert_eq!(s.exit(), 1);
    let screen = s.parser().screen().contents();
    assert!(screen.contains("no/such/file.h5"), "{screen}");
    let bytes = s.output.lock().unwrap().clone();
    assert!(
        !String::from_utf8_lossy(&bytes).contains("\x1b[?1049h"),
        "the screen was taken"
    );
}
