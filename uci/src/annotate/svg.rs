//! The graph of a game: White's expected score after every move, as an area
//! over a dark background (White's share light, Black's dark), with the
//! inaccuracies, mistakes and blunders as coloured dots whose tooltips give
//! the move and its evaluation. Plain SVG 1.1 text that browsers show as it
//! is; nothing here needs a drawing library.

use super::{Mark, MoveReport};
use shakmaty::Color;
use std::fmt::Write as _;

/// Size of the picture, in pixels.
const WIDTH: f64 = 860.0;
const HEIGHT: f64 = 320.0;
/// Room around the plot for the title, the axes and the legend.
const LEFT: f64 = 56.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 48.0;
const BOTTOM: f64 = 40.0;
/// Moves between two labelled ticks of the move axis, at least.
const MOVES_PER_TICK: u32 = 5;
/// Labelled ticks on the move axis, at most.
const MOST_TICKS: u32 = 16;

const WHITE_SHARE: &str = "#f2f2f2";
const BLACK_SHARE: &str = "#4a4a4a";
const CURVE: &str = "#2f6fdb";

fn colour(mark: Mark) -> &'static str {
    match mark {
        Mark::Inaccuracy => "#e8c200",
        Mark::Mistake => "#f07800",
        Mark::Blunder => "#d7191c",
    }
}

fn name(mark: Mark) -> &'static str {
    match mark {
        Mark::Inaccuracy => "inaccuracy",
        Mark::Mistake => "mistake",
        Mark::Blunder => "blunder",
    }
}

/// Text made safe for SVG content and attribute values.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The graph of a game titled `title`, starting with White's expected score
/// `start` (0 to 1), one point per move of `moves`; an empty plot that says
/// so for a game without moves.
pub fn graph(title: &str, start: f64, moves: &[MoveReport]) -> String {
    let plot_width = WIDTH - LEFT - RIGHT;
    let plot_height = HEIGHT - TOP - BOTTOM;
    let plies = moves.len().max(1) as f64;
    let x = |ply: usize| LEFT + plot_width * ply as f64 / plies;
    let y = |expected: f64| TOP + plot_height * (1.0 - expected.clamp(0.0, 1.0));
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(svg, "<title>{}</title>", escape(title));
    let _ = writeln!(
        svg,
        r#"<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>"#
    );
    let _ = writeln!(
        svg,
        r#"<text x="{LEFT}" y="20" font-size="15" font-weight="bold">{}</text>"#,
        escape(title)
    );
    let _ = writeln!(
        svg,
        r##"<text x="{LEFT}" y="38" fill="#555">{}</text>"##,
        escape(&mark_counts(moves))
    );

    // The plot: Black's share as the background, White's as the area under
    // the curve.
    let _ = writeln!(
        svg,
        r#"<rect x="{LEFT}" y="{TOP}" width="{plot_width}" height="{plot_height}" fill="{BLACK_SHARE}"/>"#
    );
    if moves.is_empty() {
        let _ = writeln!(
            svg,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle" fill="white">no moves</text>"#,
            LEFT + plot_width / 2.0,
            TOP + plot_height / 2.0
        );
        svg.push_str("</svg>\n");
        return svg;
    }
    let mut curve = format!("{:.1},{:.1}", x(0), y(start));
    for (index, report) in moves.iter().enumerate() {
        let _ = write!(
            curve,
            " {:.1},{:.1}",
            x(index + 1),
            y(report.white_expected)
        );
    }
    let bottom = TOP + plot_height;
    let _ = writeln!(
        svg,
        r#"<polygon points="{:.1},{bottom:.1} {curve} {:.1},{bottom:.1}" fill="{WHITE_SHARE}"/>"#,
        x(0),
        x(moves.len())
    );
    for percent in [25, 50, 75] {
        let level = y(f64::from(percent) / 100.0);
        let dash = if percent == 50 { "6,4" } else { "2,4" };
        let _ = writeln!(
            svg,
            r##"<line x1="{LEFT}" y1="{level:.1}" x2="{:.1}" y2="{level:.1}" stroke="#888" stroke-dasharray="{dash}"/>"##,
            LEFT + plot_width
        );
    }
    for percent in [0, 25, 50, 75, 100] {
        let level = y(f64::from(percent) / 100.0);
        let _ = writeln!(
            svg,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{percent}%</text>"#,
            LEFT - 6.0,
            level + 4.0
        );
    }
    let _ = writeln!(
        svg,
        r##"<text transform="translate(14 {:.1}) rotate(-90)" text-anchor="middle" fill="#555">White's expected score</text>"##,
        TOP + plot_height / 2.0
    );
    let _ = writeln!(
        svg,
        r#"<polyline points="{curve}" fill="none" stroke="{CURVE}" stroke-width="2" stroke-linejoin="round"/>"#
    );
    let _ = writeln!(
        svg,
        r##"<rect x="{LEFT}" y="{TOP}" width="{plot_width}" height="{plot_height}" fill="none" stroke="#333"/>"##
    );
    write_move_axis(&mut svg, moves, &x, bottom);

    for (index, report) in moves.iter().enumerate() {
        let Some(mark) = report.mark else { continue };
        let radius = match mark {
            Mark::Inaccuracy => 4.0,
            Mark::Mistake => 5.0,
            Mark::Blunder => 6.0,
        };
        let number = if report.mover == Color::White {
            format!("{}.", report.fullmove)
        } else {
            format!("{}...", report.fullmove)
        };
        let _ = writeln!(
            svg,
            r#"<circle cx="{:.1}" cy="{:.1}" r="{radius}" fill="{}" stroke="black" stroke-width="1"><title>{}</title></circle>"#,
            x(index + 1),
            y(report.white_expected),
            colour(mark),
            escape(&format!(
                "{number} {}{} ({}), eval {}",
                report.san,
                mark.symbol(),
                name(mark),
                report.eval.pgn_text()
            ))
        );
    }
    write_legend(&mut svg);
    svg.push_str("</svg>\n");
    svg
}

/// `White: 1 ?!, 0 ?, 1 ?? · Black: ...`.
fn mark_counts(moves: &[MoveReport]) -> String {
    let count = |mover: Color, mark: Mark| {
        moves
            .iter()
            .filter(|m| m.mover == mover && m.mark == Some(mark))
            .count()
    };
    let side = |mover: Color, label: &str| {
        format!(
            "{label}: {} ?!, {} ?, {} ??",
            count(mover, Mark::Inaccuracy),
            count(mover, Mark::Mistake),
            count(mover, Mark::Blunder)
        )
    };
    format!(
        "{} \u{b7} {}",
        side(Color::White, "White"),
        side(Color::Black, "Black")
    )
}

/// Ticks and labels at the first move and at White's moves every few move
/// numbers.
fn write_move_axis(svg: &mut String, moves: &[MoveReport], x: &impl Fn(usize) -> f64, bottom: f64) {
    let (Some(first), Some(last)) = (moves.first(), moves.last()) else {
        return;
    };
    let span = last.fullmove - first.fullmove + 1;
    let step =
        MOVES_PER_TICK.max(span.div_ceil(MOST_TICKS).div_ceil(MOVES_PER_TICK) * MOVES_PER_TICK);
    for (index, report) in moves.iter().enumerate() {
        let first_of_number = report.mover == Color::White || index == 0;
        let labelled = index == 0 || report.fullmove.is_multiple_of(step);
        if !first_of_number || !labelled {
            continue;
        }
        let at = x(index + 1);
        let _ = writeln!(
            svg,
            r##"<line x1="{at:.1}" y1="{bottom:.1}" x2="{at:.1}" y2="{:.1}" stroke="#333"/>"##,
            bottom + 5.0
        );
        let _ = writeln!(
            svg,
            r#"<text x="{at:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            bottom + 18.0,
            report.fullmove
        );
    }
    let _ = writeln!(
        svg,
        r##"<text x="{:.1}" y="{:.1}" text-anchor="middle" fill="#555">move</text>"##,
        LEFT + (WIDTH - LEFT - RIGHT) / 2.0,
        bottom + 34.0
    );
}

/// The colours of the marks, top right.
fn write_legend(svg: &mut String) {
    let mut at = WIDTH - RIGHT - 330.0;
    for mark in [Mark::Inaccuracy, Mark::Mistake, Mark::Blunder] {
        let _ = writeln!(
            svg,
            r#"<circle cx="{at:.1}" cy="34" r="5" fill="{}" stroke="black" stroke-width="1"/><text x="{:.1}" y="38">{} {}</text>"#,
            colour(mark),
            at + 9.0,
            name(mark),
            mark.symbol()
        );
        at += 112.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::annotate::Eval;

    #[test]
    fn marks_become_dots_with_their_move_and_titles_are_escaped() {
        let moves = [
            MoveReport {
                san: "e4".to_string(),
                mover: Color::White,
                fullmove: 1,
                eval: Eval::Centipawns(30),
                white_expected: 0.55,
                mark: None,
            },
            MoveReport {
                san: "Qh4".to_string(),
                mover: Color::Black,
                fullmove: 1,
                eval: Eval::Centipawns(-512),
                white_expected: 0.05,
                mark: Some(Mark::Blunder),
            },
        ];
        let svg = graph("A & B <test>", 0.5, &moves);
        assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
        assert!(svg.contains("A &amp; B &lt;test&gt;"));
        assert!(svg.contains("<title>1... Qh4?? (blunder), eval -5.12</title>"));
        assert!(svg.contains("White: 0 ?!, 0 ?, 0 ?? \u{b7} Black: 0 ?!, 0 ?, 1 ??"));
        assert!(svg.trim_end().ends_with("</svg>"));

        let empty = graph("No moves", 0.5, &[]);
        assert!(empty.contains(">no moves</text>") && !empty.contains("<polygon"));
        assert!(empty.trim_end().ends_with("</svg>"));
    }
}
