//! `sessa tunables` lists the search's tunables in the form SPSA tuners read.

use std::process::Command;

#[test]
fn tunables_are_listed_for_a_tuner() {
    let output = Command::new(env!("CARGO_BIN_EXE_sessa"))
        .arg("tunables")
        .output()
        .expect("running sessa tunables");
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).unwrap();
    let mut names = Vec::new();
    for line in text.lines() {
        let fields: Vec<&str> = line.split(", ").collect();
        assert_eq!(fields.len(), 7, "{line}");
        assert_eq!(fields[1], "int", "{line}");
        let number = |i: usize| fields[i].parse::<i64>().unwrap();
        let (value, min, max, step) = (number(2), number(3), number(4), number(5));
        assert!(min <= value && value <= max && step > 0, "{line}");
        assert!(fields[6].parse::<f64>().unwrap() > 0.0, "{line}");
        names.push(fields[0].to_string());
    }
    // The search's constants, with the values the signature was measured with
    // (those of the SPSA run, see engine/src/params.rs).
    assert!(text.contains("aspiration_window, int, 23, "), "{text}");
    assert!(text.contains("lmr_history_divisor, int, 16159, "), "{text}");
    let count = names.len();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), count, "a name repeats");
    assert!(count >= 30, "only {count} tunables");
}
