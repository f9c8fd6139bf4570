//! The tuner on a small fixture of self-play positions
//! (`tests/fixtures/selfplay.txt`, written by `datagen --games 12 --nodes 2000 --seed 7`).

use bench::tune::{
    Schedule, current_weights, evaluate, fit_k, loss, occurrences, parse_samples, tune,
};

const FIXTURE: &str = include_str!("fixtures/selfplay.txt");

#[test]
fn tuning_lowers_the_loss() {
    let (samples, _) = parse_samples(FIXTURE);
    assert!(samples.len() > 500, "{} samples", samples.len());
    let weights = current_weights();
    let k = fit_k(&samples, &weights);
    assert!((0.1..4.0).contains(&k), "k = {k}");
    let before = loss(&samples, &weights, k);
    // The fitted k is a minimum: nudging it either way costs.
    assert!(loss(&samples, &weights, k * 1.2) > before);
    assert!(loss(&samples, &weights, k / 1.2) > before);
    let mut reported = Vec::new();
    let schedule = Schedule {
        epochs: 40,
        rate: 1.0,
        min_positions: 20,
        l2: 0.0,
        frozen: vec![false; weights.len()],
        report_every: 10,
    };
    let tuned = tune(&samples, weights.clone(), k, schedule, |epoch, l| {
        reported.push((epoch, l))
    });
    let after = loss(&samples, &tuned, k);
    // Rare features keep their weights; common ones move.
    let seen = occurrences(&samples);
    for (i, &n) in seen.iter().enumerate() {
        if n < 20 {
            assert_eq!(tuned[i], weights[i], "weight {i} seen {n} times");
        }
    }
    assert!(
        seen.iter()
            .zip(tuned.iter().zip(&weights))
            .any(|(&n, (t, w))| n >= 20 && t != w)
    );
    assert!(after < before * 0.99, "loss {before} -> {after}");
    assert_eq!(reported.len(), 4);
    assert!(
        reported.windows(2).all(|w| w[1].1 <= w[0].1 + 1e-9),
        "{reported:?}"
    );
}

#[test]
fn samples_agree_with_the_engine_evaluation() {
    use sessa_engine::eval::{NoTrace, evaluate_traced};
    use shakmaty::fen::Fen;
    use shakmaty::{CastlingMode, Chess};
    let weights = current_weights();
    for line in FIXTURE.lines().take(100) {
        let (fen, _) = line.split_once('|').unwrap();
        let (samples, _) = parse_samples(line);
        let pos: Chess = fen
            .trim()
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        let engine = evaluate_traced(&pos, None, &mut NoTrace).white as f64;
        let tuner = evaluate(&samples[0], &weights);
        // The engine rounds integer divisions; the tuner does not.
        assert!(
            (engine - tuner).abs() <= 2.0,
            "{fen}: engine {engine}, tuner {tuner}"
        );
    }
}

#[test]
fn bad_and_repeated_lines_are_skipped() {
    let first = FIXTURE.lines().next().unwrap();
    let text = format!(
        "{first}\n{first}\nnot a fen | 1.0\n{}| 2.0\n8/8/4k3/8/8/3NK3/8/8 w - - 0 1 | 1.0\n",
        first.split('|').next().unwrap()
    );
    let (samples, skipped) = parse_samples(&text);
    assert_eq!(samples.len(), 1);
    assert_eq!(skipped, 4);
}
