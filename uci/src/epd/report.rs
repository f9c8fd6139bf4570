//! The results of `sessa epd` in each output format: one writer per format
//! behind the [`Report`] trait.

use super::{EpdArgs, Format, Outcome, Summary, Verdict};
use indicatif::ProgressBar;
use serde::Serialize;
use sessa_engine::ReportedScore;
use sessa_engine::epd::EpdLineError;
use std::io::{self, Write};

/// Writes the results of a run as they come: the run's settings, then per
/// file its positions and summary, then the summary of all files.
pub(super) trait Report {
    /// Before the first file.
    fn begin(&mut self, args: &EpdArgs) -> io::Result<()>;
    /// A file that could not be read (the error is also on stderr).
    fn unreadable_file(&mut self, name: &str, error: &io::Error) -> io::Result<()>;
    /// Before the positions of a file.
    fn begin_file(&mut self, name: &str, positions: usize) -> io::Result<()>;
    /// One searched position, in file order.
    fn position(&mut self, name: &str, outcome: &Outcome) -> io::Result<()>;
    /// After the positions of a file, with its totals and invalid lines.
    fn end_file(
        &mut self,
        name: &str,
        summary: &Summary,
        errors: &[EpdLineError],
    ) -> io::Result<()>;
    /// After the last file, with the totals of all files.
    fn finish(&mut self, overall: &Summary, files: usize) -> io::Result<()>;
}

/// The writer of `format`, writing to `out` around `progress`.
pub(super) fn new(format: Format, out: Box<dyn Write>, progress: ProgressBar) -> Box<dyn Report> {
    let output = Output { out, progress };
    match format {
        Format::Text => Box::new(TextReport { output }),
        Format::Csv => Box::new(CsvReport { output }),
        Format::Json => Box::new(JsonReport {
            output,
            document: JsonDocument::default(),
            positions: Vec::new(),
        }),
    }
}

/// Where a report goes, written without tearing the progress bar.
struct Output {
    out: Box<dyn Write>,
    progress: ProgressBar,
}

impl Output {
    /// Writes `text` to the output and flushes it.
    fn write(&mut self, text: &str) -> io::Result<()> {
        let out = &mut self.out;
        self.progress.suspend(|| {
            out.write_all(text.as_bytes())?;
            out.flush()
        })
    }

    /// Writes a line to stderr.
    fn note(&self, line: &str) {
        self.progress.suspend(|| eprintln!("{line}"));
    }
}

/// When the answer was right from, for a solved position.
fn solution_ms(outcome: &Outcome) -> Option<u64> {
    match outcome.verdict {
        Verdict::Solved { after_ms } => Some(after_ms),
        _ => None,
    }
}

/// A table for people: a line per position and a summary per file.
struct TextReport {
    output: Output,
}

impl Report for TextReport {
    fn begin(&mut self, args: &EpdArgs) -> io::Result<()> {
        self.output.write(&format!(
            "sessa epd: {}, {} thread(s), {} MB hash, {} job(s){}\n",
            args.limit_text(),
            args.engines.threads,
            args.engines.hash,
            args.engines.jobs,
            args.engines
                .syzygy
                .as_ref()
                .map_or_else(String::new, |path| format!(", Syzygy {path}"))
        ))
    }

    fn unreadable_file(&mut self, _name: &str, _error: &io::Error) -> io::Result<()> {
        Ok(())
    }

    fn begin_file(&mut self, name: &str, positions: usize) -> io::Result<()> {
        let header = text_row([
            "line",
            "result",
            "move",
            "score",
            "depth",
            "nodes",
            "time",
            "solved at",
            "points",
            "target; id",
        ]);
        self.output
            .write(&format!("\n{name}: {positions} positions\n{header}"))
    }

    fn position(&mut self, _name: &str, o: &Outcome) -> io::Result<()> {
        let points = o
            .points
            .map_or_else(|| "-".to_string(), |(p, max)| format!("{p}/{max}"));
        let solved_at = solution_ms(o).map_or_else(|| "-".to_string(), |ms| format!("{ms} ms"));
        let line = text_row([
            &o.line.to_string(),
            o.verdict.word(),
            &o.played_san,
            &score_text(o.score),
            &o.depth.to_string(),
            &o.nodes.to_string(),
            &format!("{} ms", o.time.as_millis()),
            &solved_at,
            &points,
            &format!("{}; {}", o.expected, o.id),
        ]);
        let notes: String = o
            .repairs
            .iter()
            .map(|repair| format!("{:>5} FEN repaired: {repair}\n", ""))
            .collect();
        self.output.write(&(line + &notes))
    }

    fn end_file(&mut self, name: &str, summary: &Summary, _: &[EpdLineError]) -> io::Result<()> {
        self.output.write(&format!("{}\n", summary.text(name)))
    }

    fn finish(&mut self, overall: &Summary, files: usize) -> io::Result<()> {
        if files > 1 {
            self.output
                .write(&format!("\n{}\n", overall.text("all files")))
        } else {
            Ok(())
        }
    }
}

/// A line of the text table; the last column is left-aligned and unpadded.
fn text_row(columns: [&str; 10]) -> String {
    let [
        line,
        result,
        played,
        score,
        depth,
        nodes,
        time,
        solved_at,
        points,
        target,
    ] = columns;
    format!(
        "{line:>5} {result:<9} {played:<8} {score:>7} {depth:>5} {nodes:>11} {time:>9} {solved_at:>9} {points:>6}  {target}\n"
    )
}

fn score_text(score: Option<ReportedScore>) -> String {
    match score {
        Some(ReportedScore::Centipawns(cp)) => format!("{:+.2}", f64::from(cp) / 100.0),
        Some(ReportedScore::Mate(moves)) => format!("#{moves}"),
        None => "-".to_string(),
    }
}

/// One CSV row per position under a header; the summaries go to stderr.
struct CsvReport {
    output: Output,
}

impl Report for CsvReport {
    fn begin(&mut self, _args: &EpdArgs) -> io::Result<()> {
        self.output.write(
            "file,line,id,result,move,uci,expected,score,depth,nodes,time_ms,solution_ms,points,max_points,repairs\n",
        )
    }

    fn unreadable_file(&mut self, _name: &str, _error: &io::Error) -> io::Result<()> {
        Ok(())
    }

    fn begin_file(&mut self, _name: &str, _positions: usize) -> io::Result<()> {
        Ok(())
    }

    fn position(&mut self, name: &str, o: &Outcome) -> io::Result<()> {
        let fields = [
            csv_field(name),
            o.line.to_string(),
            csv_field(&o.id),
            o.verdict.word().to_string(),
            csv_field(&o.played_san),
            csv_field(&o.played_uci),
            csv_field(&o.expected),
            score_uci(o.score),
            o.depth.to_string(),
            o.nodes.to_string(),
            o.time.as_millis().to_string(),
            solution_ms(o).map_or_else(String::new, |ms| ms.to_string()),
            o.points.map_or_else(String::new, |(p, _)| p.to_string()),
            o.points.map_or_else(String::new, |(_, m)| m.to_string()),
            csv_field(&o.repairs.join("; ")),
        ];
        self.output.write(&(fields.join(",") + "\n"))
    }

    fn end_file(&mut self, name: &str, summary: &Summary, _: &[EpdLineError]) -> io::Result<()> {
        self.output.note(&summary.text(name));
        Ok(())
    }

    fn finish(&mut self, overall: &Summary, files: usize) -> io::Result<()> {
        if files > 1 {
            self.output.note(&overall.text("all files"));
        }
        Ok(())
    }
}

fn score_uci(score: Option<ReportedScore>) -> String {
    match score {
        Some(ReportedScore::Centipawns(cp)) => format!("cp {cp}"),
        Some(ReportedScore::Mate(moves)) => format!("mate {moves}"),
        None => String::new(),
    }
}

/// A CSV field, quoted when it holds a comma, quote or line break.
fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

/// One JSON document with the settings, the positions and summary of every
/// file and the summary of all files, written by `serde_json` when the run
/// ends (a document cut short would not be JSON anyway).
struct JsonReport {
    output: Output,
    document: JsonDocument,
    /// The positions of the file being run.
    positions: Vec<JsonPosition>,
}

impl Report for JsonReport {
    fn begin(&mut self, args: &EpdArgs) -> io::Result<()> {
        self.document.settings = JsonSettings {
            limit: args.limit_text(),
            threads: args.engines.threads,
            hash_mb: args.engines.hash,
            jobs: args.engines.jobs,
            syzygy: args.engines.syzygy.clone(),
        };
        Ok(())
    }

    fn unreadable_file(&mut self, name: &str, error: &io::Error) -> io::Result<()> {
        self.document.files.push(JsonFile::Unreadable {
            file: name.to_string(),
            error: error.to_string(),
        });
        Ok(())
    }

    fn begin_file(&mut self, _name: &str, _positions: usize) -> io::Result<()> {
        self.positions.clear();
        Ok(())
    }

    fn position(&mut self, _name: &str, o: &Outcome) -> io::Result<()> {
        self.positions.push(JsonPosition {
            line: o.line,
            id: o.id.clone(),
            result: o.verdict.word(),
            played: o.played_san.clone(),
            uci: o.played_uci.clone(),
            expected: o.expected.clone(),
            score: o.score.map(|score| match score {
                ReportedScore::Centipawns(cp) => JsonScore::Cp(cp),
                ReportedScore::Mate(moves) => JsonScore::Mate(moves),
            }),
            depth: o.depth,
            nodes: o.nodes,
            time_ms: duration_ms(o.time),
            solution_ms: solution_ms(o),
            points: o.points.map(|(points, _)| points),
            max_points: o.points.map(|(_, max)| max),
            repairs: o.repairs.clone(),
        });
        Ok(())
    }

    fn end_file(
        &mut self,
        name: &str,
        summary: &Summary,
        errors: &[EpdLineError],
    ) -> io::Result<()> {
        self.document.files.push(JsonFile::Read {
            file: name.to_string(),
            positions: std::mem::take(&mut self.positions),
            bad_lines: errors
                .iter()
                .map(|e| JsonBadLine {
                    line: e.line,
                    error: e.error.to_string(),
                })
                .collect(),
            summary: JsonSummary::of(summary),
        });
        Ok(())
    }

    fn finish(&mut self, overall: &Summary, _files: usize) -> io::Result<()> {
        self.document.summary = Some(JsonSummary::of(overall));
        let text = serde_json::to_string(&self.document).map_err(io::Error::other)?;
        self.output.write(&(text + "\n"))
    }
}

fn duration_ms(time: std::time::Duration) -> u64 {
    u64::try_from(time.as_millis()).unwrap_or(u64::MAX)
}

/// The JSON document of a run.
#[derive(Serialize, Default)]
struct JsonDocument {
    settings: JsonSettings,
    files: Vec<JsonFile>,
    summary: Option<JsonSummary>,
}

/// The settings of a run (`syzygy`: null without tablebases).
#[derive(Serialize, Default)]
struct JsonSettings {
    limit: String,
    threads: u16,
    hash_mb: u32,
    jobs: u16,
    syzygy: Option<String>,
}

/// A file: its positions, invalid lines and summary, or why it could not be read.
#[derive(Serialize)]
#[serde(untagged)]
enum JsonFile {
    Read {
        file: String,
        positions: Vec<JsonPosition>,
        bad_lines: Vec<JsonBadLine>,
        summary: JsonSummary,
    },
    Unreadable {
        file: String,
        error: String,
    },
}

#[derive(Serialize)]
struct JsonPosition {
    line: usize,
    id: String,
    result: &'static str,
    #[serde(rename = "move")]
    played: String,
    uci: String,
    expected: String,
    score: Option<JsonScore>,
    depth: u32,
    nodes: u64,
    time_ms: u64,
    solution_ms: Option<u64>,
    points: Option<u32>,
    max_points: Option<u32>,
    repairs: Vec<String>,
}

/// A score: `{"cp":N}` or `{"mate":N}`.
#[derive(Serialize)]
#[serde(rename_all = "lowercase")]
enum JsonScore {
    Cp(i32),
    Mate(i32),
}

#[derive(Serialize)]
struct JsonBadLine {
    line: usize,
    error: String,
}

/// The totals of a file or of all files; the points are null when no
/// position has any.
#[derive(Serialize)]
struct JsonSummary {
    positions: usize,
    judged: usize,
    solved: usize,
    /// Solved in percent of judged, to a tenth.
    percent: f64,
    total_time_ms: u64,
    mean_time_ms: u64,
    mean_solution_ms: Option<u64>,
    points: Option<u32>,
    max_points: Option<u32>,
    bad_lines: usize,
    repaired: usize,
}

impl JsonSummary {
    fn of(s: &Summary) -> JsonSummary {
        let with_points = s.max_points > 0;
        JsonSummary {
            positions: s.positions,
            judged: s.judged,
            solved: s.solved,
            percent: (s.percent() * 10.0).round() / 10.0,
            total_time_ms: duration_ms(s.time),
            mean_time_ms: s.mean_time_ms(),
            mean_solution_ms: s.mean_solution_ms(),
            points: with_points.then_some(s.points),
            max_points: with_points.then_some(s.max_points),
            bad_lines: s.bad_lines,
            repaired: s.repaired,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_fields_are_quoted_when_needed() {
        assert_eq!(csv_field("Qg6"), "Qg6");
        assert_eq!(csv_field("bm Qg6; am a3, b3"), "\"bm Qg6; am a3, b3\"");
        assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
    }

    #[test]
    fn json_files_keep_their_text_and_shape() {
        let awkward = "a\"b\\c\nd\u{1}é";
        let file = JsonFile::Unreadable {
            file: awkward.to_string(),
            error: "denied".to_string(),
        };
        let text = serde_json::to_string(&file).unwrap();
        assert!(
            text.starts_with("{\"file\":\"a\\\"b\\\\c\\nd\\u0001é\""),
            "{text}"
        );
        let back: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back["file"], awkward);
        assert_eq!(
            serde_json::to_string(&Some(JsonScore::Mate(-3))).unwrap(),
            "{\"mate\":-3}"
        );
    }
}
