//! `sp-tui-bench [--sp BIN] [--size COLSxROWS] [--keys N] [--tree] [--sort] [--reference] PROFILE`:
//! `sp tui` measured as a user meets it, through a real pseudo-terminal.
//!
//! It starts the interface on PROFILE and times, from the spawn, the first full screen (the
//! status line with its read counter is drawn last), and reads off that line how many bytes
//! the first screen took. A profile read whole for its call tree is then watched until the
//! tree is shown: when it was, and the longest gap between two frames (`--tree`: only
//! that; `--sort`: then the sort and mode keys in Regions, see [`sort_keys`]). Then it presses keys, each once the screen has been quiet for a
//! moment, and times until the redrawn frame has arrived: a row down in Regions, a switch of
//! view, a pan of the Timeline (its frame rate is one over that time). Last, the peak
//! resident memory of the process (`VmHWM`), and `q`.
//!
//! `--reference` also times the reference's `scope-profiler tui PROFILE` (Python, Textual)
//! to its first screen showing a region of the profile, with `$SP_PYTHON` (default
//! `.venv/bin/python`); give it a profile it can hold in memory.

use std::io::{Read, Write};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use portable_pty::{native_pty_system, Child, CommandBuilder, PtySize};

const USAGE: &str = "usage: sp-tui-bench [--sp BIN] [--size COLSxROWS] [--keys N] [--tree] [--sort] [--reference] PROFILE";

/// What the terminal has shown so far, fed by a reader thread.
struct Screen {
    parser: vt100::Parser,
    /// When the last bytes arrived, and how many writes there were.
    last: Instant,
    writes: u64,
    /// Until the call tree is shown: when each write arrived and what the screen said of
    /// the call tree's work then (the frame gaps and the build's length are read off it).
    tree_log: Option<Vec<(Instant, TreeState)>>,
}

/// What a frame says of the call tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TreeState {
    /// `reading the call tree` on the status line.
    Reading,
    /// Read, not shown yet (the status line says it is being built).
    Building,
    /// Shown: the Overview says `call tree`, and no job about it runs.
    Shown,
    /// None of these (the index's rows, no call tree work).
    Other,
}

impl TreeState {
    /// The body first: a frame arrives in pieces, and the status line is drawn last.
    fn of(screen: &str) -> TreeState {
        let status = screen.lines().last().unwrap_or("");
        if screen.contains("  call tree · ") {
            TreeState::Shown
        } else if status.contains("reading the call tree") {
            TreeState::Reading
        } else if status.contains("call tree") {
            TreeState::Building
        } else {
            TreeState::Other
        }
    }
}

/// A program running on a pseudo-terminal.
struct Session {
    child: Box<dyn Child + Send + Sync>,
    writer: Box<dyn Write + Send>,
    screen: Arc<Mutex<Screen>>,
    started: Instant,
}

impl Session {
    fn start(program: &str, args: &[String], cols: u16, rows: u16) -> Result<Session, String> {
        let pair = native_pty_system()
            .openpty(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .map_err(|e| format!("cannot open a pseudo-terminal: {e}"))?;
        // A relative path is taken from here, not looked up on the PATH.
        let program = match std::fs::canonicalize(program) {
            Ok(p) if program.contains('/') => p.display().to_string(),
            _ => program.to_string(),
        };
        let mut cmd = CommandBuilder::new(&program);
        cmd.args(args);
        cmd.cwd(std::env::current_dir().map_err(|e| e.to_string())?);
        cmd.env("TERM", "xterm-256color");
        let screen = Arc::new(Mutex::new(Screen {
            parser: vt100::Parser::new(rows, cols, 0),
            last: Instant::now(),
            writes: 0,
            tree_log: Some(Vec::new()),
        }));
        let started = Instant::now();
        let child = pair
            .slave
            .spawn_command(cmd)
            .map_err(|e| format!("cannot start {program}: {e}"))?;
        drop(pair.slave);
        let mut reader = pair.master.try_clone_reader().map_err(|e| e.to_string())?;
        let writer = pair.master.take_writer().map_err(|e| e.to_string())?;
        let sink = screen.clone();
        std::thread::spawn(move || {
            let _master = pair.master;
            let mut buf = [0u8; 1 << 16];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                let mut s = sink.lock().unwrap_or_else(|e| e.into_inner());
                s.parser.process(&buf[..n]);
                s.last = Instant::now();
                s.writes += 1;
                let now = s.last;
                if s.tree_log.is_some() {
                    let state = TreeState::of(&s.parser.screen().contents());
                    if let Some(log) = s.tree_log.as_mut() {
                        log.push((now, state));
                    }
                }
            }
        });
        Ok(Session {
            child,
            writer,
            screen,
            started,
        })
    }

    fn with<T>(&self, f: impl FnOnce(&Screen) -> T) -> T {
        f(&self.screen.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// Waits until the screen's text satisfies `done`; the time since the start it first did.
    fn wait(&self, limit: Duration, done: impl Fn(&str) -> bool) -> Result<Duration, String> {
        loop {
            let (ok, last) = self.with(|s| (done(&s.parser.screen().contents()), s.last));
            if ok {
                return Ok(last - self.started);
            }
            if self.started.elapsed() > limit {
                return Err(format!(
                    "the screen was not ready after {limit:?}:\n{}",
                    self.with(|s| s.parser.screen().contents())
                ));
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// Waits until nothing has been written for `quiet`.
    fn settle(&self, quiet: Duration) {
        while self.with(|s| s.last.elapsed()) < quiet {
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    /// Sends `key` and returns how long until its frame had arrived (the last write of the
    /// burst that followed it), or `None` if nothing was redrawn.
    fn press(&mut self, key: &[u8]) -> Result<Option<Duration>, String> {
        self.settle(Duration::from_millis(150));
        let before = self.with(|s| s.writes);
        let sent = Instant::now();
        self.writer.write_all(key).map_err(|e| e.to_string())?;
        self.writer.flush().map_err(|e| e.to_string())?;
        let limit = Duration::from_secs(5);
        while self.with(|s| s.writes) == before {
            if sent.elapsed() > limit {
                return Ok(None);
            }
            std::thread::sleep(Duration::from_micros(200));
        }
        self.settle(Duration::from_millis(40));
        Ok(Some(self.with(|s| s.last) - sent))
    }

    /// Peak resident memory of the process, in bytes.
    fn peak_rss(&self) -> Option<u64> {
        let pid = self.child.process_id()?;
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
        let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
        let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kib * 1024)
    }

    fn quit(mut self, key: &[u8]) {
        let _ = self.writer.write_all(key);
        let _ = self.writer.flush();
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
    }
}

struct Opts {
    sp: String,
    cols: u16,
    rows: u16,
    keys: usize,
    reference: bool,
    tree: bool,
    sort: bool,
    profile: String,
}

fn parse_args(args: &[String]) -> Result<Opts, String> {
    let mut opts = Opts {
        sp: "target/release/sp".into(),
        cols: 200,
        rows: 60,
        keys: 30,
        reference: false,
        tree: false,
        sort: false,
        profile: String::new(),
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{a} needs a value"));
        match a.as_str() {
            "--sp" => opts.sp = value()?.clone(),
            "--keys" => opts.keys = value()?.parse().map_err(|_| "--keys takes a count")?,
            "--size" => {
                let v = value()?;
                let (c, r) = v.split_once('x').ok_or("--size takes COLSxROWS")?;
                opts.cols = c.parse().map_err(|_| "--size takes COLSxROWS")?;
                opts.rows = r.parse().map_err(|_| "--size takes COLSxROWS")?;
            }
            "--reference" => opts.reference = true,
            "--tree" => opts.tree = true,
            "--sort" => opts.sort = true,
            p if !p.starts_with('-') && opts.profile.is_empty() => opts.profile = p.into(),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    if opts.profile.is_empty() {
        return Err("no PROFILE given".into());
    }
    Ok(opts)
}

/// The median and the largest of `times`, in milliseconds.
fn summary(times: &mut [Duration]) -> (f64, f64) {
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    match times {
        [] => (f64::NAN, f64::NAN),
        _ => (ms(times[times.len() / 2]), ms(times[times.len() - 1])),
    }
}

/// The read counter of the status line ("read 412.0 KiB").
fn read_counter(screen: &str) -> Option<String> {
    let at = screen.rfind(" read ")?;
    let rest = &screen[at + 6..];
    let end = [" ·", "  ", "\n"]
        .iter()
        .filter_map(|sep| rest.find(sep))
        .min()
        .unwrap_or(rest.len());
    Some(rest[..end].trim().to_string())
}

/// The width of the timeline's window in milliseconds, off its header ("(12.5 ms shown)").
fn shown_window_ms(screen: &str) -> Option<f64> {
    let end = screen.find(" shown)")?;
    let start = screen[..end].rfind('(')? + 1;
    let (value, unit) = screen[start..end].trim().split_once(' ')?;
    let value: f64 = value.replace(',', "").parse().ok()?;
    let scale = match unit {
        "s" => 1e3,
        "ms" => 1.0,
        "µs" | "us" => 1e-3,
        "ns" => 1e-6,
        _ => return None,
    };
    Some(value * scale)
}

/// Presses `key` `n` times; the median and largest time to its frame.
fn time_key(s: &mut Session, key: &[u8], n: usize) -> Result<(f64, f64), String> {
    let mut times = Vec::new();
    for _ in 0..n {
        if let Some(t) = s.press(key)? {
            times.push(t);
        }
    }
    Ok(summary(&mut times))
}

fn run(opts: &Opts) -> Result<(), String> {
    let args = vec!["tui".to_string(), opts.profile.clone()];
    let mut s = Session::start(&opts.sp, &args, opts.cols, opts.rows)?;
    let first = s.wait(Duration::from_secs(60), |t| t.contains(" read "))?;
    let first_read = s.with(|x| read_counter(&x.parser.screen().contents()));
    println!("sp tui {} at {}x{}", opts.profile, opts.cols, opts.rows);
    println!(
        "first screen:            {:8.1} ms, read {}",
        first.as_secs_f64() * 1e3,
        first_read.as_deref().unwrap_or("?")
    );
    call_tree(&s)?;
    if opts.sort {
        sort_keys(&mut s, opts.keys)?;
    }
    if opts.tree || opts.sort {
        s.quit(b"q");
        return Ok(());
    }
    // The Timeline first, on a fresh session: its key to its frame, then zooms (each
    // halves the window) down to about 10 ms.
    let t = s.press(b"5")?;
    println!(
        "timeline key:            {:8.1} ms",
        t.map_or(f64::NAN, |d| d.as_secs_f64() * 1e3)
    );
    print_rss(&s, "after Timeline");
    let mut zooms = Vec::new();
    for _ in 0..40 {
        let shown = s.with(|x| x.parser.screen().contents());
        if shown_window_ms(&shown).is_some_and(|ms| ms <= 10.0) {
            break;
        }
        zooms.extend(s.press(b"+")?);
    }
    let shown = s.with(|x| x.parser.screen().contents());
    let last = zooms.last().map_or(f64::NAN, |d| d.as_secs_f64() * 1e3);
    let (zoom, zoom_max) = summary(&mut zooms);
    println!(
        "timeline zoom:           {zoom:8.1} ms median, {zoom_max:.1} ms max, {last:.1} ms the last, to {} ms shown",
        shown_window_ms(&shown).map_or("?".into(), |ms| format!("{ms:.2}"))
    );
    print_rss(&s, "after zooming");
    s.press(b"0")?;
    s.press(b"2")?; // Regions
    let (down, down_max) = time_key(&mut s, b"j", opts.keys)?;
    println!("keypress (row down):     {down:8.1} ms median, {down_max:.1} ms max");
    print_rss(&s, "after Regions");
    let (tab, tab_max) = time_key(&mut s, b"\t", opts.keys)?;
    println!("keypress (next view):    {tab:8.1} ms median, {tab_max:.1} ms max");
    print_rss(&s, "after every view");
    s.press(b"5")?; // Timeline
    s.press(b"0")?;
    let (pan, pan_max) = time_key(&mut s, b"l", opts.keys)?;
    println!(
        "timeline pan:            {pan:8.1} ms median, {pan_max:.1} ms max ({:.0} frames/s)",
        1e3 / pan
    );
    s.settle(Duration::from_millis(300));
    let read_now = s.with(|x| read_counter(&x.parser.screen().contents()));
    println!(
        "read after the keys:     {}",
        read_now.as_deref().unwrap_or("?")
    );
    print_rss(&s, "after the timeline");
    s.quit(b"q");
    if opts.reference {
        reference(opts)?;
    }
    Ok(())
}

/// A profile read whole for its call tree (at most 2^20 calls): waits until the tree is
/// shown, and prints when the read landed (the last frame saying it reads), when the tree
/// was shown, and the longest gap between two frames until then (the interface redraws
/// its spinner every 50 ms while work runs, so a longer gap is the UI thread blocked).
fn call_tree(s: &Session) -> Result<(), String> {
    let wants = s.with(|x| TreeState::of(&x.parser.screen().contents()));
    if matches!(wants, TreeState::Other | TreeState::Shown) {
        let mut g = s.screen.lock().unwrap_or_else(|e| e.into_inner());
        g.tree_log = None;
        println!("call tree:               not read whole (the index's rows only), or at once");
        return Ok(());
    }
    s.wait(Duration::from_secs(120), |t| {
        TreeState::of(t) == TreeState::Shown
    })?;
    let log = {
        let mut g = s.screen.lock().unwrap_or_else(|e| e.into_inner());
        g.tree_log.take().unwrap_or_default()
    };
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let shown = log
        .iter()
        .position(|f| f.1 == TreeState::Shown)
        .unwrap_or(log.len() - 1);
    // The read has landed at the first frame saying the tree is being built, or, where
    // no frame says so, at the last one saying it is read.
    let landed = (log[..shown].iter().position(|f| f.1 == TreeState::Building))
        .or_else(|| log[..shown].iter().rposition(|f| f.1 == TreeState::Reading));
    let gap = log[..=shown]
        .windows(2)
        .map(|w| w[1].0 - w[0].0)
        .max()
        .unwrap_or_default();
    let at = |i: usize| ms(log[i].0 - s.started);
    let mut states = String::new();
    for (i, f) in log[..=shown].iter().enumerate() {
        if i == 0 || log[i - 1].1 != f.1 {
            states.push_str(&format!(" {:?} at {:.1} ms,", f.1, at(i)));
        }
    }
    println!("call tree states:       {}", states.trim_end_matches(','));
    println!(
        "call tree shown:         {:8.1} ms; read by {}, shown {} after; longest frame gap {:.1} ms",
        at(shown),
        landed.map_or("?".into(), |l| format!("{:.1} ms", at(l))),
        landed.map_or("?".into(), |l| format!("{:.1} ms", at(shown) - at(l))),
        ms(gap)
    );
    Ok(())
}

/// In Regions, `s` pressed `n` times and then `m` `n` times, each once the screen has
/// been quiet: the time from the key to its first frame (the UI thread answers a key
/// before it draws, so this is how long the key held it), to the frame showing the
/// rows it asked for (the status line names the new sort or mode, and the table says
/// neither that a call tree is being built nor that its rows are the old options'), and
/// the longest gap between two frames until then (the interface redraws its spinner
/// every 50 ms while a job runs, so a longer gap is the UI thread blocked).
fn sort_keys(s: &mut Session, n: usize) -> Result<(), String> {
    s.press(b"2")?;
    let keys = sp::analysis::SortKey::ALL;
    let mut at = (keys.iter())
        .position(|k| s.with(|x| status_has(&x.parser.screen().contents(), k.1)))
        .ok_or("no sort on the status line")?;
    let mut sorts = Vec::new();
    for _ in 0..n {
        at = (at + 1) % keys.len();
        let name = keys[at].1;
        sorts.push(key_to_rows(s, b"s", |t| status_has(t, name))?);
    }
    print_key_times("sort key", &mut sorts);
    let mut modes = Vec::new();
    for i in 0..n {
        let exclusive = i % 2 == 0;
        modes.push(key_to_rows(s, b"m", |t| {
            let status = t.lines().last().unwrap_or("");
            status.contains(" · exclusive %") == exclusive
        })?);
    }
    print_key_times("mode key", &mut modes);
    Ok(())
}

/// The status line names sort `name`.
fn status_has(screen: &str, name: &str) -> bool {
    let status = screen.lines().last().unwrap_or("");
    status.contains(&format!("sort {name} ·"))
}

/// Sends `key` once the screen is quiet; the time to the first frame after it, to the
/// frame where `done` holds and the region table is not waiting for a call tree or for
/// the rows of new options, and the longest gap between two writes from the key to then.
fn key_to_rows(
    s: &mut Session,
    key: &[u8],
    done: impl Fn(&str) -> bool,
) -> Result<(Duration, Duration, Duration), String> {
    s.settle(Duration::from_millis(150));
    let before = s.with(|x| x.writes);
    let sent = Instant::now();
    s.writer.write_all(key).map_err(|e| e.to_string())?;
    s.writer.flush().map_err(|e| e.to_string())?;
    let mut first = None;
    let (mut seen, mut previous, mut gap) = (before, sent, Duration::ZERO);
    loop {
        let (writes, last, ok) = s.with(|x| {
            let t = x.parser.screen().contents();
            let waits = t.contains("index; tree") || t.contains("old options");
            (x.writes, x.last, done(&t) && !waits)
        });
        if writes > seen {
            gap = gap.max(last.saturating_duration_since(previous));
            (seen, previous) = (writes, last);
        }
        if first.is_none() && writes > before {
            first = Some(last - sent);
        }
        if ok && writes > before {
            return Ok((first.unwrap_or(last - sent), last - sent, gap));
        }
        if sent.elapsed() > Duration::from_secs(60) {
            return Err("the rows were not shown after 60 s".into());
        }
        std::thread::sleep(Duration::from_micros(200));
    }
}

/// Prints the medians and the largest of `times` (to the first frame, to the rows, the
/// longest frame gap).
fn print_key_times(what: &str, times: &mut [(Duration, Duration, Duration)]) {
    let mut first: Vec<_> = times.iter().map(|t| t.0).collect();
    let mut rows: Vec<_> = times.iter().map(|t| t.1).collect();
    let mut gaps: Vec<_> = times.iter().map(|t| t.2).collect();
    let (f, f_max) = summary(&mut first);
    let (r, r_max) = summary(&mut rows);
    let (g, g_max) = summary(&mut gaps);
    println!(
        "{:<24} {f:8.1} ms median to its first frame ({f_max:.1} max), {r:.1} ms to the rows ({r_max:.1} max), longest frame gap {g:.1} ms ({g_max:.1} max)",
        format!("{what}:")
    );
}

/// The process's peak resident memory so far.
fn print_rss(s: &Session, when: &str) {
    match s.peak_rss() {
        Some(b) => println!("peak RSS {when:<16}{:8.1} MiB", b as f64 / 1048576.0),
        None => println!("peak RSS {when:<16}       ?"),
    }
}

/// The reference's `scope-profiler tui` to its first screen naming a region.
fn reference(opts: &Opts) -> Result<(), String> {
    let python = std::env::var("SP_PYTHON").unwrap_or_else(|_| ".venv/bin/python".into());
    let args: Vec<String> = ["-m", "scope_profiler", "tui", &opts.profile]
        .map(String::from)
        .to_vec();
    let s = Session::start(&python, &args, opts.cols, opts.rows)?;
    // The workloads' root region; any profile of sp-workload has it.
    let first = s.wait(Duration::from_secs(600), |t| t.contains("timestep"))?;
    let rss = s.peak_rss();
    println!(
        "reference first screen:  {:8.1} ms, peak RSS {} MiB",
        first.as_secs_f64() * 1e3,
        rss.map_or("?".into(), |b| format!("{:.1}", b as f64 / 1048576.0))
    );
    s.quit(b"\x11q"); // Ctrl-Q, then q
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "-h" || a == "--help") {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    match parse_args(&args).and_then(|o| run(&o)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("sp-tui-bench: {e}");
            ExitCode::FAILURE
        }
    }
}
