//! The terminal, taken and always given back: raw mode, the alternate screen and a hidden
//! cursor while `sp tui` runs; restored on quit, on an error (the [`Screen`] is dropped),
//! on a panic (a hook restores before the message is printed) and on SIGINT, SIGTERM or
//! SIGHUP (a watcher thread restores and exits 128 + the signal, as the other commands).

use std::io::{self, Stdout, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use crossterm::event::{DisableMouseCapture, EnableMouseCapture};
use crossterm::terminal::{self, EnterAlternateScreen, LeaveAlternateScreen};
use crossterm::{cursor, execute};
use ratatui::backend::CrosstermBackend;
use ratatui::Terminal;

/// Whether the screen is taken (so a restore has something to undo).
static TAKEN: AtomicBool = AtomicBool::new(false);
/// Held while a frame is written, so a signal's restore does not cut one in half.
pub static DRAWING: Mutex<()> = Mutex::new(());

/// The taken terminal; dropping it gives the terminal back.
pub struct Screen {
    pub terminal: Terminal<CrosstermBackend<Stdout>>,
}

impl Screen {
    /// Takes the terminal: raw mode, alternate screen, mouse reports, cursor hidden.
    pub fn take() -> io::Result<Screen> {
        install_panic_hook();
        watch_signals();
        terminal::enable_raw_mode()?;
        TAKEN.store(true, Ordering::SeqCst);
        let mut out = io::stdout();
        if let Err(e) = execute!(out, EnterAlternateScreen, EnableMouseCapture, cursor::Hide) {
            restore();
            return Err(e);
        }
        let terminal = Terminal::new(CrosstermBackend::new(out)).inspect_err(|_| restore())?;
        Ok(Screen { terminal })
    }
}

impl Drop for Screen {
    fn drop(&mut self) {
        restore();
    }
}

/// Gives the terminal back, once: main screen, cursor shown, cooked mode.
pub fn restore() {
    if TAKEN.swap(false, Ordering::SeqCst) {
        let mut out = io::stdout();
        let _ = execute!(out, DisableMouseCapture, LeaveAlternateScreen, cursor::Show);
        let _ = terminal::disable_raw_mode();
        let _ = out.flush();
    }
}

/// Restores the terminal before the default hook prints a panic's message.
fn install_panic_hook() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore();
        previous(info);
    }));
}

/// On SIGINT, SIGTERM or SIGHUP: wait for the frame being written, restore, exit
/// 128 + the signal number.
#[cfg(unix)]
fn watch_signals() {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    use signal_hook::iterator::Signals;
    let Ok(mut signals) = Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
        return;
    };
    let _ = std::thread::Builder::new()
        .name("sp-tui-signals".into())
        .spawn(move || {
            if let Some(signal) = signals.forever().next() {
                let _held = DRAWING.lock();
                restore();
                std::process::exit(128 + signal);
            }
        });
}

#[cfg(not(unix))]
fn watch_signals() {}
