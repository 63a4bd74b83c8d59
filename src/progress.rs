//! Progress on stderr that the log's lines do not break. A command's bar or spinner is
//! [`Shown`] while it runs; the log's writer ([`Log`]) clears it before each line and
//! draws it again after, so a warning is a line of its own, never written after a bar's
//! half-drawn text or cleared with it.

use std::io::{self, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use indicatif::ProgressBar;

/// The bars shown now, the newest last: one may be shown inside another (`play`'s line
/// while its balance gate runs the simulation's bar), and the log writes around the
/// newest; each is known by its number.
static SHOWN: Mutex<Vec<(u64, ProgressBar)>> = Mutex::new(Vec::new());

/// A bar or spinner shown while this lives: the log writes around it, and it is cleared
/// when this is dropped.
pub struct Shown {
    bar: ProgressBar,
    id: u64,
}

impl Shown {
    /// Shows `bar` (indicatif hides it where its target is no terminal), unless the
    /// command is quiet (`-q`: only errors on stderr).
    pub fn new(bar: ProgressBar) -> Shown {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        if !tracing::enabled!(tracing::Level::WARN) {
            bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
        }
        let id = NEXT.fetch_add(1, Ordering::Relaxed);
        slot().push((id, bar.clone()));
        Shown { bar, id }
    }

    /// The bar, to move on and relabel.
    pub fn bar(&self) -> &ProgressBar {
        &self.bar
    }
}

impl Drop for Shown {
    fn drop(&mut self) {
        slot().retain(|(id, _)| *id != self.id);
        self.bar.finish_and_clear();
    }
}

/// Clears the shown bars, if any, from the terminal: for a command stopped by a signal,
/// which exits without dropping them.
pub fn clear() {
    for (_, bar) in std::mem::take(&mut *slot()) {
        bar.finish_and_clear();
    }
}

/// The bars, also after a thread panicked holding them (they are handles, nothing torn).
fn slot() -> std::sync::MutexGuard<'static, Vec<(u64, ProgressBar)>> {
    SHOWN.lock().unwrap_or_else(|e| e.into_inner())
}

/// Writes `line` to `sink` with the shown bar, if any, cleared meanwhile.
fn write_around(sink: &mut dyn Write, line: &[u8]) -> io::Result<()> {
    // A clone of the handle: the bar's own lock is taken in `suspend`, not ours.
    let bar = slot().last().map(|(_, bar)| bar.clone());
    let mut write = || sink.write_all(line).and_then(|()| sink.flush());
    match bar {
        Some(bar) => bar.suspend(write),
        None => write(),
    }
}

/// The log's writer (`tracing_subscriber`'s `with_writer`): stderr, around the bar. The
/// formatter writes each event whole, so each event is one cleared-and-redrawn line.
#[derive(Debug, Clone, Copy, Default)]
pub struct Log;

impl Write for Log {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        // Not stderr's lock over the bar's: its ticking thread takes the bar's, then
        // stderr's, and the other order here could deadlock with it.
        write_around(&mut io::stderr(), buf)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        io::stderr().flush()
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for Log {
    type Writer = Log;

    fn make_writer(&'a self) -> Log {
        Log
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use indicatif::{ProgressDrawTarget, ProgressStyle, TermLike};
    use std::sync::{Arc, Mutex as StdMutex};

    /// A terminal that records what is drawn on it, in one log with the sink's writes.
    #[derive(Debug, Clone)]
    struct Recorder(Arc<StdMutex<Vec<String>>>);

    impl Recorder {
        fn push(&self, what: String) -> io::Result<()> {
            self.0.lock().unwrap().push(what);
            Ok(())
        }
    }

    impl TermLike for Recorder {
        fn width(&self) -> u16 {
            80
        }
        fn move_cursor_up(&self, _: usize) -> io::Result<()> {
            Ok(())
        }
        fn move_cursor_down(&self, _: usize) -> io::Result<()> {
            Ok(())
        }
        fn move_cursor_right(&self, _: usize) -> io::Result<()> {
            Ok(())
        }
        fn move_cursor_left(&self, _: usize) -> io::Result<()> {
            Ok(())
        }
        fn write_line(&self, s: &str) -> io::Result<()> {
            self.push(format!("bar {s}"))
        }
        fn write_str(&self, s: &str) -> io::Result<()> {
            self.push(format!("bar {s}"))
        }
        fn clear_line(&self) -> io::Result<()> {
            self.push("clear".into())
        }
        fn flush(&self) -> io::Result<()> {
            Ok(())
        }
    }

    impl Write for Recorder {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.push(format!("log {}", String::from_utf8_lossy(buf).trim_end()))?;
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// The shown bar is one slot for the process: its tests take turns.
    static TURN: StdMutex<()> = StdMutex::new(());

    /// A subscriber that logs at `level`, as `main` sets one up.
    fn logging(level: tracing::Level) -> impl tracing::Subscriber {
        tracing_subscriber::fmt()
            .with_max_level(level)
            .with_writer(io::sink)
            .finish()
    }

    /// A bar of `len` (a spinner: none) drawn with `template` on a recording terminal,
    /// and the recorder.
    fn recorded(len: Option<u64>, template: &str) -> (ProgressBar, Recorder) {
        let record = Recorder(Arc::new(StdMutex::new(Vec::new())));
        let bar = ProgressBar::with_draw_target(
            len,
            ProgressDrawTarget::term_like(Box::new(record.clone())),
        )
        .with_style(ProgressStyle::with_template(template).unwrap());
        (bar, record)
    }

    #[test]
    fn a_signal_clears_the_bar_from_the_terminal() {
        let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
        let _logging = tracing::subscriber::set_default(logging(tracing::Level::WARN));
        let (bar, record) = recorded(None, "building {msg}");
        let spinner = Shown::new(bar);
        spinner.bar().set_message("dance.bvh");
        spinner.bar().suspend(|| ());
        clear();
        let log = record.0.lock().unwrap().clone();
        let drawn = log.iter().rposition(|l| l.contains("building dance.bvh"));
        assert!(drawn.is_some(), "{log:?}");
        assert!(log.iter().rposition(|l| l == "clear") > drawn, "{log:?}");
        // Nothing is left to write around.
        assert!(slot().is_empty());
    }

    #[test]
    fn a_quiet_command_shows_no_bar() {
        let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
        let shown = tracing::subscriber::with_default(logging(tracing::Level::ERROR), || {
            Shown::new(ProgressBar::new(3))
        });
        assert!(shown.bar().is_hidden());
    }

    #[test]
    fn a_log_line_is_written_with_the_bar_cleared_and_the_bar_drawn_again_after() {
        let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
        let _logging = tracing::subscriber::set_default(logging(tracing::Level::WARN));
        let (bar, record) = recorded(Some(3), "{pos}/{len} {msg}");
        let shown = Shown::new(bar);
        shown.bar().set_message("dance.bvh");
        shown.bar().inc(1);
        // Drawn now, whatever indicatif's rate limit would let through.
        shown.bar().suspend(|| ());
        let mut sink = record.clone();
        write_around(
            &mut sink,
            b" WARN dance.bvh: 120 frames per second assumed\n",
        )
        .unwrap();
        let log = record.0.lock().unwrap().clone();
        let line = log.iter().position(|l| l.starts_with("log")).unwrap();
        assert_eq!(
            log[line],
            "log  WARN dance.bvh: 120 frames per second assumed"
        );
        // The bar was on the terminal, and is cleared before the line is written...
        let drawn = log[..line]
            .iter()
            .rposition(|l| l.contains("1/3 dance.bvh"));
        let cleared = log[..line].iter().rposition(|l| l == "clear");
        assert!(drawn.is_some() && cleared > drawn, "{log:?}");
        // ...and drawn again after it.
        assert!(
            log[line + 1..].iter().any(|l| l.contains("1/3 dance.bvh")),
            "{log:?}"
        );
        drop(shown);
        // Gone, the log writes as it is.
        let before = record.0.lock().unwrap().len();
        write_around(&mut sink, b"next\n").unwrap();
        assert_eq!(record.0.lock().unwrap()[before..], ["log next".to_string()]);
    }

    #[test]
    fn a_bar_shown_inside_another_gives_the_log_back_to_it_when_it_goes() {
        // `play` shows its line, and its balance gate then the simulation's bar while
        // it tests the motion: once that is gone, the log still writes around the line.
        let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
        let _logging = tracing::subscriber::set_default(logging(tracing::Level::WARN));
        let (line, record) = recorded(None, "playing {msg}");
        let outer = Shown::new(line);
        outer.bar().set_message("dance.mtn");
        let (inner, _) = recorded(Some(10), "simulating {pos}");
        drop(Shown::new(inner));
        outer.bar().suspend(|| ());
        let mut sink = record.clone();
        write_around(&mut sink, b" WARN the link dropped\n").unwrap();
        let log = record.0.lock().unwrap().clone();
        let written = log.iter().position(|l| l.starts_with("log")).unwrap();
        let drawn = log[..written]
            .iter()
            .rposition(|l| l.contains("playing dance.mtn"));
        let cleared = log[..written].iter().rposition(|l| l == "clear");
        assert!(drawn.is_some() && cleared > drawn, "{log:?}");
        drop(outer);
        assert!(slot().is_empty());
    }
}
