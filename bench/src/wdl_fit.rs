//! Fitting the engine's win/draw/loss model (`sessa_engine::wdl`) to games.
//!
//! A sample is one move of a game that the engine searched: its score (from
//! the side to move's point of view, as the PGN comment of the move gives
//! it), the material on the board before the move, and how the game ended
//! for the side to move. The fit maximises the likelihood of the outcomes
//! under the model over the eight polynomial coefficients, with full-batch
//! Adam.

use rayon::prelude::*;
#[cfg(test)]
use sessa_engine::wdl::parameters;
use sessa_engine::wdl::{A, B, material, win_chance};
use shakmaty::fen::Fen;
use shakmaty::san::SanPlus;
use shakmaty::{CastlingMode, Chess, Color, Position};
use std::fmt;

/// How a game ended for the side to move of a sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The side to move won.
    Win,
    /// The game was drawn.
    Draw,
    /// The side to move lost.
    Loss,
}

/// One searched move of a game.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    /// The engine's score in centipawns, side to move's point of view.
    pub score: f64,
    /// Material on the board (see `sessa_engine::wdl::material`).
    pub material: i32,
    /// The result for the side to move.
    pub outcome: Outcome,
}

impl fmt::Display for Sample {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let outcome = match self.outcome {
            Outcome::Win => 1,
            Outcome::Draw => 0,
            Outcome::Loss => -1,
        };
        write!(f, "{},{},{outcome}", self.score, self.material)
    }
}

/// Reads a line written by `Sample`'s `Display`: `score,material,outcome`.
pub fn parse_sample(line: &str) -> Option<Sample> {
    let mut fields = line.trim().split(',');
    let score = fields.next()?.parse().ok()?;
    let material = fields.next()?.parse().ok()?;
    let outcome = match fields.next()?.trim() {
        "1" => Outcome::Win,
        "0" => Outcome::Draw,
        "-1" => Outcome::Loss,
        _ => return None,
    };
    Some(Sample {
        score,
        material,
        outcome,
    })
}

/// The score of a move comment such as `+0.35/12 0.123s`, in centipawns;
/// `None` for book moves, mate scores and comments without a score.
fn comment_score(comment: &str) -> Option<f64> {
    let first = comment.split_whitespace().next()?;
    let score = first.split('/').next()?;
    if score.contains('M') {
        return None;
    }
    let pawns: f64 = score.parse().ok()?;
    Some(pawns * 100.0)
}

/// Splits PGN text into games' tag sections and movetexts.
fn games(text: &str) -> Vec<(Vec<(String, String)>, String)> {
    let mut games = Vec::new();
    let mut tags = Vec::new();
    let mut moves = String::new();
    for line in text.lines() {
        let line = line.trim();
        if let Some(tag) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            if !moves.trim().is_empty() {
                games.push((std::mem::take(&mut tags), std::mem::take(&mut moves)));
            }
            if let Some((name, value)) = tag.split_once(' ') {
                tags.push((name.to_string(), value.trim_matches('"').to_string()));
            }
        } else {
            moves.push_str(line);
            moves.push(' ');
        }
    }
    if !moves.trim().is_empty() {
        games.push((tags, moves));
    }
    games
}

/// The samples of every game in a PGN text whose result is decided and whose
/// moves all replay legally; moves with a score comment count.
pub fn samples_from_pgn(text: &str) -> Vec<Sample> {
    let mut samples = Vec::new();
    for (tags, movetext) in games(text) {
        let tag = |name: &str| {
            tags.iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.as_str())
        };
        let white_points = match tag("Result") {
            Some("1-0") => 2,
            Some("0-1") => 0,
            Some("1/2-1/2") => 1,
            _ => continue,
        };
        let start = match tag("FEN") {
            Some(fen) => match fen
                .parse::<Fen>()
                .ok()
                .and_then(|f| f.into_position::<Chess>(CastlingMode::Standard).ok())
            {
                Some(pos) => pos,
                None => continue,
            },
            None => Chess::default(),
        };
        if let Some(game) = replay(start, &movetext, white_points) {
            samples.extend(game);
        }
    }
    samples
}

/// Replays a movetext and returns its scored moves, or `None` if a move does not parse.
fn replay(mut pos: Chess, movetext: &str, white_points: i32) -> Option<Vec<Sample>> {
    let mut samples = Vec::new();
    let mut rest = movetext;
    let mut pending: Option<(i32, Color)> = None;
    while let Some(c) = rest.chars().next() {
        if c.is_whitespace() {
            rest = &rest[c.len_utf8()..];
            continue;
        }
        if c == '{' {
            let end = rest.find('}')?;
            let comment = &rest[1..end];
            rest = &rest[end + 1..];
            if let (Some((material, side)), Some(score)) = (pending.take(), comment_score(comment))
            {
                let points = if side == Color::White {
                    white_points
                } else {
                    2 - white_points
                };
                let outcome = match points {
                    2 => Outcome::Win,
                    1 => Outcome::Draw,
                    _ => Outcome::Loss,
                };
                samples.push(Sample {
                    score,
                    material,
                    outcome,
                });
            }
            continue;
        }
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let token = &rest[..end];
        rest = &rest[end..];
        if ["1-0", "0-1", "1/2-1/2", "*"].contains(&token) {
            continue;
        }
        let token = token.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
        if token.is_empty() {
            continue;
        }
        let san: SanPlus = token.parse().ok()?;
        let m = san.san.to_move(&pos).ok()?;
        pending = Some((material(pos.board()), pos.turn()));
        pos.play_unchecked(m);
    }
    Some(samples)
}

/// The model's chances of a win and of a loss for a sample, given the coefficients.
fn chances(sample: &Sample, a: &[f64; 4], b: &[f64; 4]) -> (f64, f64) {
    (
        win_chance(sample.score, sample.material, a, b),
        win_chance(-sample.score, sample.material, a, b),
    )
}

/// The mean negative log-likelihood of the outcomes.
pub fn loss(samples: &[Sample], a: &[f64; 4], b: &[f64; 4]) -> f64 {
    let total: f64 = samples
        .par_iter()
        .map(|s| {
            let (win, lose) = chances(s, a, b);
            let p = match s.outcome {
                Outcome::Win => win,
                Outcome::Loss => lose,
                Outcome::Draw => 1.0 - win - lose,
            };
            -p.max(1e-12).ln()
        })
        .sum();
    total / samples.len().max(1) as f64
}

/// Fits the coefficients, starting from the engine's, by full-batch Adam on
/// the likelihood (numerical gradients, which are cheap with eight
/// parameters), the step falling from 2 to 0.02 centipawns.
pub fn fit(samples: &[Sample], iterations: usize) -> ([f64; 4], [f64; 4]) {
    let mut params = [0.0; 8];
    params[..4].copy_from_slice(&A);
    params[4..].copy_from_slice(&B);
    let split = |p: &[f64; 8]| {
        let mut a = [0.0; 4];
        let mut b = [0.0; 4];
        a.copy_from_slice(&p[..4]);
        b.copy_from_slice(&p[4..]);
        (a, b)
    };
    let objective = |p: &[f64; 8]| {
        let (a, b) = split(p);
        loss(samples, &a, &b)
    };
    let mut first = [0.0; 8];
    let mut second = [0.0; 8];
    for step in 1..=iterations {
        // From 2 cp per step down to 0.02 along a cosine.
        let progress = step as f64 / iterations.max(1) as f64;
        let lr = 0.02 + (2.0 - 0.02) * 0.5 * (1.0 + (std::f64::consts::PI * progress).cos());
        let mut gradient = [0.0; 8];
        for i in 0..8 {
            let h = 1e-3;
            let mut up = params;
            let mut down = params;
            up[i] += h;
            down[i] -= h;
            gradient[i] = (objective(&up) - objective(&down)) / (2.0 * h);
        }
        for i in 0..8 {
            first[i] = 0.9 * first[i] + 0.1 * gradient[i];
            second[i] = 0.999 * second[i] + 0.001 * gradient[i] * gradient[i];
            let m = first[i] / (1.0 - 0.9f64.powi(step as i32));
            let v = second[i] / (1.0 - 0.999f64.powi(step as i32));
            params[i] -= lr * m / (v.sqrt() + 1e-9);
        }
    }
    split(&params)
}

/// Predicted against observed outcomes of the samples whose score falls in one range.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bin {
    /// Lowest score of the range (centipawns).
    pub from: f64,
    /// Highest score of the range.
    pub to: f64,
    /// Samples in the range.
    pub count: usize,
    /// Mean predicted (win, draw, loss).
    pub predicted: (f64, f64, f64),
    /// Observed shares of (win, draw, loss).
    pub observed: (f64, f64, f64),
}

/// Splits the scores at `edges` and compares predictions and outcomes in each range.
pub fn calibration(samples: &[Sample], a: &[f64; 4], b: &[f64; 4], edges: &[f64]) -> Vec<Bin> {
    edges
        .windows(2)
        .map(|w| {
            let inside: Vec<&Sample> = samples
                .iter()
                .filter(|s| s.score >= w[0] && s.score < w[1])
                .collect();
            let n = inside.len().max(1) as f64;
            let mut predicted = (0.0, 0.0, 0.0);
            let mut observed = (0.0, 0.0, 0.0);
            for s in &inside {
                let (win, lose) = chances(s, a, b);
                predicted.0 += win / n;
                predicted.1 += (1.0 - win - lose) / n;
                predicted.2 += lose / n;
                match s.outcome {
                    Outcome::Win => observed.0 += 1.0 / n,
                    Outcome::Draw => observed.1 += 1.0 / n,
                    Outcome::Loss => observed.2 += 1.0 / n,
                }
            }
            Bin {
                from: w[0],
                to: w[1],
                count: inside.len(),
                predicted,
                observed,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const PGN: &str = r#"[Event "test"]
[White "a"]
[Black "b"]
[Result "1-0"]

1. e4 {book} e5 {-0.20/10 0.1s} 2. Qh5 {+0.40/11 0.2s} Nc6 {-0.50/9 0.1s}
3. Bc4 {+1.00/12 0.1s} Nf6 {-3.00/10 0.1s} 4. Qxf7# {+M1/1 0.0s} 1-0

[Event "test"]
[Result "1/2-1/2"]
[FEN "4k3/8/8/8/8/8/8/4K2R w K - 0 1"]
[SetUp "1"]

1. O-O {+5.00/20 0.1s} Kd7 {-5.00/20 0.1s} 1/2-1/2
"#;

    #[test]
    fn scored_moves_become_samples() {
        let samples = samples_from_pgn(PGN);
        assert_eq!(samples.len(), 7);
        assert_eq!(
            samples[0],
            Sample {
                score: -20.0,
                material: 78,
                outcome: Outcome::Loss
            }
        );
        assert_eq!(samples[1].outcome, Outcome::Win);
        assert_eq!(samples[1].score, 40.0);
        assert_eq!(samples[5].material, 5);
        assert_eq!(samples[5].outcome, Outcome::Draw);
        let line = samples[3].to_string();
        assert_eq!(parse_sample(&line), Some(samples[3]));
    }

    #[test]
    fn the_fit_recovers_a_known_model() {
        // Outcomes drawn from a model with a = 150 and b = 80 everywhere.
        let a = [0.0, 0.0, 0.0, 150.0];
        let b = [0.0, 0.0, 0.0, 80.0];
        let mut rng = crate::rng::Rng::new(3);
        let samples: Vec<Sample> = (0..20_000)
            .map(|i| {
                let score = (i % 801) as f64 - 400.0;
                let material = 20 + (i % 50);
                let probe = Sample {
                    score,
                    material,
                    outcome: Outcome::Draw,
                };
                let (win, lose) = chances(&probe, &a, &b);
                let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
                let outcome = if u < win {
                    Outcome::Win
                } else if u < win + lose {
                    Outcome::Loss
                } else {
                    Outcome::Draw
                };
                Sample { outcome, ..probe }
            })
            .collect();
        let (fa, fb) = fit(&samples, 400);
        let (pa, pb) = parameters(50, &fa, &fb);
        assert!((pa - 150.0).abs() < 15.0, "a = {pa}");
        assert!((pb - 80.0).abs() < 12.0, "b = {pb}");
        assert!(loss(&samples, &fa, &fb) <= loss(&samples, &A, &B));
    }
}
