//! Measures how promptly a UCI engine answers: `isready` during a search,
//! `bestmove` after `stop`, and the overshoot of `go movetime`.
//!
//! Usage: `uci_latency <engine> [rounds] [threads]`. Prints the median and
//! the worst of each measurement in milliseconds.

use std::io::{BufRead, BufReader, Write};
use std::process::{ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

struct Uci {
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Uci {
    fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").expect("engine stdin");
        self.stdin.flush().expect("engine stdin");
    }

    /// Waits for a line starting with `prefix`; returns the time it took.
    fn wait_for(&self, prefix: &str, since: Instant) -> Duration {
        loop {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(30))
                .expect("engine answered in time");
            if line.starts_with(prefix) {
                return since.elapsed();
            }
        }
    }
}

fn summary(name: &str, mut samples: Vec<Duration>) {
    samples.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "{name:<28} median {:>7.2} ms   worst {:>7.2} ms   ({} samples)",
        ms(samples[samples.len() / 2]),
        ms(*samples.last().expect("samples")),
        samples.len()
    );
}

fn main() {
    let mut args = std::env::args().skip(1);
    let engine = args
        .next()
        .expect("usage: uci_latency <engine> [rounds] [threads]");
    let rounds: usize = args.next().map_or(20, |r| r.parse().expect("rounds"));
    let threads: usize = args.next().map_or(1, |t| t.parse().expect("threads"));
    let mut child = Command::new(engine)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("starting the engine");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, lines) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut uci = Uci {
        stdin: child.stdin.take().expect("stdin"),
        lines,
    };
    uci.send("uci");
    uci.wait_for("uciok", Instant::now());
    uci.send(&format!("setoption name Threads value {threads}"));
    uci.send("isready");
    uci.wait_for("readyok", Instant::now());

    let mut ready = Vec::new();
    let mut stop = Vec::new();
    let mut overshoot = Vec::new();
    for _ in 0..rounds {
        uci.send("position startpos moves e2e4 e7e5 g1f3");
        uci.send("go infinite");
        std::thread::sleep(Duration::from_millis(200));
        let sent = Instant::now();
        uci.send("isready");
        ready.push(uci.wait_for("readyok", sent));
        std::thread::sleep(Duration::from_millis(100));
        let sent = Instant::now();
        uci.send("stop");
        stop.push(uci.wait_for("bestmove", sent));

        let sent = Instant::now();
        uci.send("go movetime 200");
        let took = uci.wait_for("bestmove", sent);
        overshoot.push(took.saturating_sub(Duration::from_millis(200)));
    }
    uci.send("quit");
    let _ = child.wait();
    println!("threads {threads}");
    summary("isready during search", ready);
    summary("stop to bestmove", stop);
    summary("movetime 200 overshoot", overshoot);
}
