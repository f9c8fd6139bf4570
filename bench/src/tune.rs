//! Texel tuning of the evaluation weights.
//!
//! The evaluation is linear in its weights once the phase and the endgame
//! scale of a position are known, so each position is reduced once to its
//! feature counts (`sessa_engine::eval::features`). The tuner then minimises
//! the mean squared error between the game result and
//! `1 / (1 + 10^(-k * eval / 400))` over all positions: first the constant
//! `k` with the weights fixed, then every weight by full-batch Adam gradient
//! descent, in parallel with rayon.

use rayon::prelude::*;
use sessa_engine::eval::terms::{COUNT, TERMS};
use sessa_engine::eval::weights::WEIGHTS;
use sessa_engine::eval::{MAX_PHASE, NORMAL_SCALE, features};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess};
use std::collections::HashSet;
use std::fmt::Write;

/// Weights being tuned: `[middlegame, endgame]` for every feature.
pub type Weights = Vec<[f64; 2]>;

/// One training position, reduced to what the evaluation needs.
#[derive(Debug, Clone)]
pub struct Sample {
    counts: Vec<(u16, i16)>,
    /// Weight of the middlegame half.
    mg_share: f64,
    /// Weight of the endgame half, the endgame scale included.
    eg_share: f64,
    /// Game result from White's point of view: 1, 0.5 or 0.
    result: f64,
}

/// Parses lines of `<fen> | <result>` (result 1.0, 0.5 or 0.0, White's point
/// of view). Repeated positions (same placement, side, castling and en
/// passant) are kept once; lines that do not parse, and positions whose
/// material cannot win (scale 0), are skipped. Returns the samples and the
/// number of lines skipped.
pub fn parse_samples(text: &str) -> (Vec<Sample>, usize) {
    let mut seen = HashSet::new();
    let lines: Vec<&str> = text
        .lines()
        .filter(|line| {
            let key: Vec<&str> = line.split_whitespace().take(4).collect();
            seen.insert(key.join(" "))
        })
        .collect();
    let samples: Vec<Sample> = lines
        .par_iter()
        .filter_map(|line| parse_line(line))
        .collect();
    let skipped = text.lines().count() - samples.len();
    (samples, skipped)
}

fn parse_line(line: &str) -> Option<Sample> {
    let (fen, result) = line.split_once('|')?;
    let result: f64 = result.trim().parse().ok()?;
    if !(0.0..=1.0).contains(&result) {
        return None;
    }
    let pos: Chess = fen
        .trim()
        .parse::<Fen>()
        .ok()?
        .into_position(CastlingMode::Standard)
        .ok()?;
    let f = features(&pos);
    if f.scale == 0 {
        return None;
    }
    let phase = f.phase as f64 / MAX_PHASE as f64;
    Some(Sample {
        counts: f.counts,
        mg_share: phase,
        eg_share: (1.0 - phase) * f.scale as f64 / NORMAL_SCALE as f64,
        result,
    })
}

/// The weights the engine uses now.
pub fn current_weights() -> Weights {
    WEIGHTS
        .iter()
        .map(|w| [w.mg() as f64, w.eg() as f64])
        .collect()
}

/// Evaluation of a sample under `weights`, White's point of view.
pub fn evaluate(sample: &Sample, weights: &Weights) -> f64 {
    let (mut mg, mut eg) = (0.0, 0.0);
    for &(i, count) in &sample.counts {
        let w = weights[i as usize];
        mg += w[0] * count as f64;
        eg += w[1] * count as f64;
    }
    mg * sample.mg_share + eg * sample.eg_share
}

fn sigmoid(k: f64, eval: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-k * eval / 400.0))
}

/// Mean squared error of the predicted results.
pub fn loss(samples: &[Sample], weights: &Weights, k: f64) -> f64 {
    let total: f64 = samples
        .par_iter()
        .map(|s| (s.result - sigmoid(k, evaluate(s, weights))).powi(2))
        .sum();
    total / samples.len().max(1) as f64
}

/// The scaling constant `k` that best fits the results with these weights,
/// by golden-section search on `[0.1, 4]`.
pub fn fit_k(samples: &[Sample], weights: &Weights) -> f64 {
    let ratio = (5f64.sqrt() - 1.0) / 2.0;
    let (mut low, mut high) = (0.1, 4.0);
    while high - low > 1e-4 {
        let a = high - ratio * (high - low);
        let b = low + ratio * (high - low);
        if loss(samples, weights, a) < loss(samples, weights, b) {
            high = b;
        } else {
            low = a;
        }
    }
    (low + high) / 2.0
}

/// Gradient of the loss with respect to every weight.
fn gradient(samples: &[Sample], weights: &Weights, k: f64) -> Weights {
    let scale = 2.0 * k * 10f64.ln() / 400.0 / samples.len().max(1) as f64;
    samples
        .par_chunks(4096)
        .map(|chunk| {
            let mut grad = vec![[0.0; 2]; weights.len()];
            for s in chunk {
                let p = sigmoid(k, evaluate(s, weights));
                let common = -(s.result - p) * p * (1.0 - p) * scale;
                for &(i, count) in &s.counts {
                    let g = &mut grad[i as usize];
                    g[0] += common * count as f64 * s.mg_share;
                    g[1] += common * count as f64 * s.eg_share;
                }
            }
            grad
        })
        .reduce(
            || vec![[0.0; 2]; weights.len()],
            |mut a, b| {
                for (x, y) in a.iter_mut().zip(b) {
                    x[0] += y[0];
                    x[1] += y[1];
                }
                a
            },
        )
}

/// How to run the gradient descent.
#[derive(Debug, Clone)]
pub struct Schedule {
    /// Steps over the whole data set.
    pub epochs: usize,
    /// Adam step size, in centipawns.
    pub rate: f64,
    /// Weights whose feature occurs in fewer positions than this keep their
    /// value: Adam would otherwise move them as fast as common ones and fit
    /// them to the noise of a few games.
    pub min_positions: usize,
    /// Strength of the pull toward the starting weights: the loss grows by
    /// this much per squared centipawn of change. Features that the data
    /// cannot tell apart (a piece's value and the average of its mobility
    /// table, for example) would otherwise drift without bound.
    pub l2: f64,
    /// Weights that keep their value whatever the data say.
    pub frozen: Vec<bool>,
    /// Call the report every this many steps.
    pub report_every: usize,
}

/// Number of positions in which each feature occurs.
pub fn occurrences(samples: &[Sample]) -> Vec<usize> {
    let mut counts = vec![0; COUNT];
    for s in samples {
        for &(i, _) in &s.counts {
            counts[i as usize] += 1;
        }
    }
    counts
}

/// Runs full-batch Adam from `weights`, calling `report(epoch, loss)` as the
/// schedule says.
pub fn tune(
    samples: &[Sample],
    mut weights: Weights,
    k: f64,
    schedule: Schedule,
    mut report: impl FnMut(usize, f64),
) -> Weights {
    let start = weights.clone();
    let tunable: Vec<bool> = occurrences(samples)
        .iter()
        .zip(&schedule.frozen)
        .map(|(&n, &frozen)| n >= schedule.min_positions && !frozen)
        .collect();
    let Schedule {
        epochs,
        rate,
        l2,
        report_every,
        ..
    } = schedule;
    const BETA1: f64 = 0.9;
    const BETA2: f64 = 0.999;
    const EPSILON: f64 = 1e-8;
    let mut m = vec![[0.0; 2]; weights.len()];
    let mut v = vec![[0.0; 2]; weights.len()];
    for epoch in 1..=epochs {
        let grad = gradient(samples, &weights, k);
        let correction1 = 1.0 - BETA1.powi(epoch as i32);
        let correction2 = 1.0 - BETA2.powi(epoch as i32);
        for i in (0..weights.len()).filter(|&i| tunable[i]) {
            for half in 0..2 {
                let g = grad[i][half] + 2.0 * l2 * (weights[i][half] - start[i][half]);
                m[i][half] = BETA1 * m[i][half] + (1.0 - BETA1) * g;
                v[i][half] = BETA2 * v[i][half] + (1.0 - BETA2) * g * g;
                let step = rate * (m[i][half] / correction1)
                    / ((v[i][half] / correction2).sqrt() + EPSILON);
                weights[i][half] -= step;
            }
        }
        if epoch % report_every.max(1) == 0 || epoch == epochs {
            report(epoch, loss(samples, &weights, k));
        }
    }
    weights
}

/// The text of `engine/src/eval/weights.rs` for these weights, rounded to
/// whole centipawns, in the layout of `terms::TERMS`.
pub fn weights_source(weights: &Weights) -> String {
    assert_eq!(weights.len(), COUNT);
    let mut out = String::from(
        "//! Every weight of the evaluation, in the layout of `terms::TERMS`.\n\
         //!\n\
         //! Written by the tuner (`cargo run --release -p bench --bin tune`, see\n\
         //! `bench/README.md`); edit by re-tuning rather than by hand.\n\
         \n\
         use super::score::S;\n\
         use super::terms::COUNT;\n\
         \n\
         /// The weights, middlegame and endgame, in centipawns.\n\
         #[rustfmt::skip]\n\
         pub const WEIGHTS: [S; COUNT] = [\n",
    );
    for term in TERMS {
        writeln!(out, "    // {}", term.name).expect("writing to a string");
        for row in weights[term.start..term.start + term.len].chunks(8) {
            let cells: Vec<String> = row
                .iter()
                .map(|w| format!("S::new({}, {}),", w[0].round() as i32, w[1].round() as i32))
                .collect();
            writeln!(out, "    {}", cells.join(" ")).expect("writing to a string");
        }
    }
    out.push_str("];\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn current_weights_reproduce_the_weights_file() {
        let source = weights_source(&current_weights());
        let file = include_str!("../../engine/src/eval/weights.rs");
        assert_eq!(source, file);
    }
}
