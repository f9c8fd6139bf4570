//! SPSA (simultaneous perturbation stochastic approximation) over the
//! search's tunables, the method OpenBench and most engine projects use to
//! tune search constants by games.
//!
//! Each iteration moves every parameter at once by `±c` (signs at random),
//! plays the "plus" set against the "minus" set, and moves every parameter
//! along its sign by the result: `value += a / c · (wins − losses) · sign`.
//! The schedule is OpenBench's: `c` shrinks as `1 / (k + 1)^0.101` and `a` as
//! `1 / (A + k + 1)^0.602` with `A` a tenth of the iterations, both scaled
//! so that the last iteration uses exactly the tunable's `c_end` and
//! `r_end = a / c²` (the last two fields of `sessa tunables`).
//!
//! This module holds the arithmetic, the parsing and the state file; the
//! `spsa` binary plays the games with fastchess.

use crate::rng::Rng;

/// OpenBench's exponent of the learning rate's decay.
const ALPHA: f64 = 0.602;
/// OpenBench's exponent of the perturbation's decay.
const GAMMA: f64 = 0.101;
/// The stability constant `A` as a share of the iterations.
const STABILITY_SHARE: f64 = 0.1;

/// One tunable under tuning, as `sessa tunables` describes it.
#[derive(Debug, Clone, PartialEq)]
pub struct Parameter {
    /// The UCI option's name.
    pub name: String,
    /// The current estimate (a float; the engine gets it rounded).
    pub value: f64,
    /// The smallest value allowed.
    pub min: f64,
    /// The largest value allowed.
    pub max: f64,
    /// The perturbation at the last iteration.
    pub c_end: f64,
    /// The learning rate `a / c²` at the last iteration.
    pub r_end: f64,
}

/// Parses `sessa tunables` lines: `name, int, value, min, max, c_end, r_end`.
/// Empty lines are skipped; any other malformed line is an error.
pub fn parse_parameters(text: &str) -> Result<Vec<Parameter>, String> {
    let mut parameters = Vec::new();
    for (number, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        let bad = || {
            format!(
                "line {}: not `name, int, value, min, max, c_end, r_end`: {line}",
                number + 1
            )
        };
        if fields.len() != 7 || fields[1] != "int" || fields[0].is_empty() {
            return Err(bad());
        }
        let number_at = |i: usize| fields[i].parse::<f64>().map_err(|_| bad());
        let parameter = Parameter {
            name: fields[0].to_string(),
            value: number_at(2)?,
            min: number_at(3)?,
            max: number_at(4)?,
            c_end: number_at(5)?,
            r_end: number_at(6)?,
        };
        let ordered = parameter.min <= parameter.value && parameter.value <= parameter.max;
        if !ordered || parameter.c_end <= 0.0 || parameter.r_end <= 0.0 {
            return Err(bad());
        }
        parameters.push(parameter);
    }
    Ok(parameters)
}

/// The decay of the perturbation and learning rate over a run.
#[derive(Debug, Clone, Copy)]
pub struct Schedule {
    iterations: u32,
}

impl Schedule {
    /// The schedule of a run of `iterations` (at least 1).
    pub fn new(iterations: u32) -> Schedule {
        Schedule {
            iterations: iterations.max(1),
        }
    }

    /// The run's length.
    pub fn iterations(&self) -> u32 {
        self.iterations
    }

    /// The perturbation `c` of `parameter` at iteration `k` (from 0).
    pub fn perturbation(&self, parameter: &Parameter, k: u32) -> f64 {
        let n = f64::from(self.iterations);
        parameter.c_end * (n / f64::from(k + 1)).powf(GAMMA)
    }

    /// The learning rate `a` of `parameter` at iteration `k` (from 0).
    pub fn learning_rate(&self, parameter: &Parameter, k: u32) -> f64 {
        let n = f64::from(self.iterations);
        let stability = STABILITY_SHARE * n;
        let a_end = parameter.r_end * parameter.c_end * parameter.c_end;
        a_end * ((stability + n) / (stability + f64::from(k + 1))).powf(ALPHA)
    }
}

/// The two engines of one iteration.
#[derive(Debug, Clone, PartialEq)]
pub struct Trial {
    /// The direction of each parameter's perturbation, +1 or −1.
    pub signs: Vec<f64>,
    /// The values the "plus" engine plays with, rounded and within range.
    pub plus: Vec<i64>,
    /// The values the "minus" engine plays with, rounded and within range.
    pub minus: Vec<i64>,
}

/// Draws iteration `k`'s perturbation of `parameters`.
pub fn trial(parameters: &[Parameter], schedule: &Schedule, k: u32, rng: &mut Rng) -> Trial {
    let mut result = Trial {
        signs: Vec::new(),
        plus: Vec::new(),
        minus: Vec::new(),
    };
    for parameter in parameters {
        let sign = if rng.next_u64() & 1 == 0 { 1.0 } else { -1.0 };
        let shift = sign * schedule.perturbation(parameter, k);
        let engine_value = |value: f64| value.clamp(parameter.min, parameter.max).round() as i64;
        result.signs.push(sign);
        result.plus.push(engine_value(parameter.value + shift));
        result.minus.push(engine_value(parameter.value - shift));
    }
    result
}

/// Moves `parameters` by iteration `k`'s result: `score` is the "plus"
/// engine's wins minus its losses. Values stay within their ranges.
pub fn update(
    parameters: &mut [Parameter],
    schedule: &Schedule,
    k: u32,
    trial: &Trial,
    score: f64,
) {
    for (parameter, sign) in parameters.iter_mut().zip(&trial.signs) {
        let c = schedule.perturbation(parameter, k);
        let a = schedule.learning_rate(parameter, k);
        parameter.value =
            (parameter.value + a / c * score * sign).clamp(parameter.min, parameter.max);
    }
}

/// The result of a match as fastchess reports it, from the first engine's side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MatchResult {
    /// Games the first engine won.
    pub wins: u32,
    /// Games it lost.
    pub losses: u32,
    /// Games drawn.
    pub draws: u32,
}

/// Reads the last `Games: N, Wins: W, Losses: L, Draws: D` line of
/// fastchess's output.
pub fn parse_fastchess_result(output: &str) -> Option<MatchResult> {
    let line = output
        .lines()
        .rev()
        .find(|l| l.trim_start().starts_with("Games:"))?;
    let field = |label: &str| -> Option<u32> {
        let rest = &line[line.find(label)? + label.len()..];
        let digits: String = rest
            .trim_start()
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        digits.parse().ok()
    };
    Some(MatchResult {
        wins: field("Wins:")?,
        losses: field("Losses:")?,
        draws: field("Draws:")?,
    })
}

/// The state of a run, written after every iteration so that a stopped run
/// resumes where it stopped: the next iteration and every value.
pub fn format_state(next_iteration: u32, parameters: &[Parameter]) -> String {
    let mut text = format!("iteration {next_iteration}\n");
    for parameter in parameters {
        text.push_str(&format!("{} {}\n", parameter.name, parameter.value));
    }
    text
}

/// Reads a state written by [`format_state`] into `parameters` (by name;
/// every parameter must be there) and returns the next iteration.
pub fn apply_state(text: &str, parameters: &mut [Parameter]) -> Result<u32, String> {
    let mut lines = text.lines();
    let next = lines
        .next()
        .and_then(|l| l.strip_prefix("iteration "))
        .and_then(|n| n.trim().parse().ok())
        .ok_or("the state does not start with `iteration N`")?;
    let mut values = std::collections::HashMap::new();
    for line in lines.filter(|l| !l.trim().is_empty()) {
        let (name, value) = line
            .split_once(' ')
            .ok_or(format!("bad state line: {line}"))?;
        let value: f64 = value
            .trim()
            .parse()
            .map_err(|_| format!("bad state line: {line}"))?;
        values.insert(name.to_string(), value);
    }
    for parameter in parameters.iter_mut() {
        let value = values
            .get(&parameter.name)
            .ok_or(format!("the state lacks {}", parameter.name))?;
        parameter.value = value.clamp(parameter.min, parameter.max);
    }
    Ok(next)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parameter(name: &str, value: f64, min: f64, max: f64, c_end: f64, r_end: f64) -> Parameter {
        Parameter {
            name: name.to_string(),
            value,
            min,
            max,
            c_end,
            r_end,
        }
    }

    #[test]
    fn tunables_lines_parse_and_bad_ones_are_refused() {
        let text = "rfp_margin, int, 80, 40, 150, 8, 0.002\n\nlmr_base_percent, int, 75, 0, 200, 10, 0.002\n";
        let parameters = parse_parameters(text).unwrap();
        assert_eq!(parameters.len(), 2);
        assert_eq!(
            parameters[0],
            parameter("rfp_margin", 80.0, 40.0, 150.0, 8.0, 0.002)
        );
        for bad in [
            "rfp_margin, int, 80, 40, 150, 8",
            "rfp_margin, float, 80, 40, 150, 8, 0.002",
            "rfp_margin, int, 80, 90, 150, 8, 0.002",
            "rfp_margin, int, 80, 40, 150, 0, 0.002",
            "rfp_margin, int, eighty, 40, 150, 8, 0.002",
        ] {
            assert!(parse_parameters(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_schedule_ends_at_c_end_and_r_end_and_decays_towards_them() {
        let p = parameter("x", 50.0, 0.0, 100.0, 4.0, 0.002);
        let schedule = Schedule::new(1000);
        let last = schedule.iterations() - 1;
        assert!((schedule.perturbation(&p, last) - 4.0).abs() < 1e-9);
        let r = schedule.learning_rate(&p, last) / schedule.perturbation(&p, last).powi(2);
        assert!((r - 0.002).abs() < 1e-12);
        for k in 1..schedule.iterations() {
            assert!(schedule.perturbation(&p, k) < schedule.perturbation(&p, k - 1));
            assert!(schedule.learning_rate(&p, k) < schedule.learning_rate(&p, k - 1));
        }
    }

    #[test]
    fn trials_are_symmetric_rounded_and_within_range() {
        let parameters = vec![
            parameter("middle", 50.2, 0.0, 100.0, 4.0, 0.002),
            parameter("edge", 1.0, 0.0, 60.0, 3.0, 0.002),
        ];
        let schedule = Schedule::new(100);
        let mut rng = Rng::new(3);
        let mut seen_signs = [false; 2];
        for k in 0..100 {
            let t = trial(&parameters, &schedule, k, &mut rng);
            let c = schedule.perturbation(&parameters[0], k);
            let expected_plus = (50.2 + t.signs[0] * c).round() as i64;
            let expected_minus = (50.2 - t.signs[0] * c).round() as i64;
            assert_eq!((t.plus[0], t.minus[0]), (expected_plus, expected_minus));
            assert!(t.plus[1] >= 0 && t.minus[1] >= 0, "{t:?}");
            assert!(t.plus[1] != t.minus[1]);
            seen_signs[usize::from(t.signs[0] > 0.0)] = true;
        }
        assert_eq!(seen_signs, [true, true]);
    }

    #[test]
    fn a_win_of_the_plus_side_moves_each_value_along_its_sign() {
        let mut parameters = vec![
            parameter("up", 50.0, 0.0, 100.0, 4.0, 0.002),
            parameter("down", 50.0, 0.0, 100.0, 4.0, 0.002),
            parameter("capped", 100.0, 0.0, 100.0, 4.0, 0.002),
        ];
        let schedule = Schedule::new(10);
        let t = Trial {
            signs: vec![1.0, -1.0, 1.0],
            plus: vec![0; 3],
            minus: vec![0; 3],
        };
        update(&mut parameters, &schedule, 9, &t, 2.0);
        // The last iteration: a / c = r_end · c_end = 0.008 per point.
        assert!((parameters[0].value - 50.016).abs() < 1e-9);
        assert!((parameters[1].value - 49.984).abs() < 1e-9);
        assert_eq!(parameters[2].value, 100.0);
        update(&mut parameters, &schedule, 9, &t, -2.0);
        assert!((parameters[0].value - 50.0).abs() < 1e-9);
    }

    /// A match between two settings of a known optimum: each game is won by
    /// the plus side with the logistic probability of its advantage.
    fn simulated_score(trial: &Trial, optimum: &[f64], games: u32, rng: &mut Rng) -> f64 {
        let strength = |values: &[i64]| -> f64 {
            values
                .iter()
                .zip(optimum)
                .map(|(&v, &o)| -((v as f64 - o) / 20.0).powi(2))
                .sum()
        };
        let edge = strength(&trial.plus) - strength(&trial.minus);
        let p_plus = 1.0 / (1.0 + (-edge).exp());
        let mut score = 0.0;
        for _ in 0..games {
            let draw = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
            score += if draw < p_plus { 1.0 } else { -1.0 };
        }
        score
    }

    #[test]
    fn a_run_moves_the_values_towards_a_known_optimum() {
        let optimum = [30.0, 70.0];
        let mut parameters = vec![
            parameter("a", 70.0, 0.0, 100.0, 4.0, 0.02),
            parameter("b", 30.0, 0.0, 100.0, 4.0, 0.02),
        ];
        let distance = |ps: &[Parameter]| -> f64 {
            ps.iter()
                .zip(&optimum)
                .map(|(p, o)| (p.value - o).abs())
                .sum()
        };
        let start = distance(&parameters);
        let schedule = Schedule::new(2000);
        let mut rng = Rng::new(11);
        for k in 0..schedule.iterations() {
            let t = trial(&parameters, &schedule, k, &mut rng);
            let score = simulated_score(&t, &optimum, 8, &mut rng);
            update(&mut parameters, &schedule, k, &t, score);
        }
        let end = distance(&parameters);
        assert!(end < start / 8.0, "from {start} to {end}: {parameters:?}");
    }

    #[test]
    fn fastchess_results_are_read_from_its_summary() {
        let output = "Finished game 8 (plus vs minus): 1-0 {White wins by adjudication}\n\
            --------------------------------------------------\n\
            Results of plus vs minus (2+0.02, 1t, 16MB, noob_3moves_sub3.epd):\n\
            Elo: 43.66 +/- 151.25, nElo: 60.24 +/- 206.17\n\
            Games: 8, Wins: 3, Losses: 2, Draws: 3, Points: 4.5 (56.25 %)\n\
            Ptnml(0-2): [0, 1, 1, 2, 0], WL/DD Ratio: 1.00\n";
        assert_eq!(
            parse_fastchess_result(output),
            Some(MatchResult {
                wins: 3,
                losses: 2,
                draws: 3
            })
        );
        assert_eq!(parse_fastchess_result("Started game 1 of 8\n"), None);
    }

    #[test]
    fn a_state_resumes_the_values_and_the_iteration() {
        let mut parameters = vec![
            parameter("a", 12.345, 0.0, 100.0, 4.0, 0.002),
            parameter("b", 99.5, 0.0, 100.0, 4.0, 0.002),
        ];
        let text = format_state(17, &parameters);
        parameters[0].value = 0.0;
        parameters[1].value = 0.0;
        assert_eq!(apply_state(&text, &mut parameters), Ok(17));
        assert_eq!(parameters[0].value, 12.345);
        assert_eq!(parameters[1].value, 99.5);
        assert!(apply_state("iteration 3\na 5\n", &mut parameters).is_err());
        assert!(apply_state("a 5\nb 6\n", &mut parameters).is_err());
    }
}
