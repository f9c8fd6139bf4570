//! The UCI options Sessa offers: their declarations for the `uci` command and
//! the checking of values given with `setoption`.

use std::fmt;

/// An option value that was refused, with the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptionError(pub String);

impl fmt::Display for OptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// One UCI option.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EngineOption {
    /// Transposition table size in MB.
    Hash,
    /// Search threads.
    Threads,
    /// Empties the transposition table.
    ClearHash,
    /// Milliseconds kept back per move for GUI and network delays.
    MoveOverhead,
    /// Free time per move in delay clocks, in ms (UCI has no field for it).
    ClockDelay,
    /// How many best lines a search reports.
    MultiPv,
    /// Whether the GUI may let the engine ponder.
    Ponder,
    /// Chess960 castling in FENs and moves.
    Chess960,
}

/// Every option, in the order `uci` lists them.
pub const OPTIONS: [EngineOption; 8] = [
    EngineOption::Hash,
    EngineOption::Threads,
    EngineOption::ClearHash,
    EngineOption::MoveOverhead,
    EngineOption::ClockDelay,
    EngineOption::MultiPv,
    EngineOption::Ponder,
    EngineOption::Chess960,
];

/// Largest hash size offered, in MB (1 TB).
pub const MAX_HASH_MB: i64 = 1 << 20;
/// Most lines MultiPV offers.
pub const MAX_MULTIPV: i64 = 256;

impl EngineOption {
    /// The option's name as the GUI shows it.
    pub fn name(self) -> &'static str {
        match self {
            EngineOption::Hash => "Hash",
            EngineOption::Threads => "Threads",
            EngineOption::ClearHash => "Clear Hash",
            EngineOption::MoveOverhead => "Move Overhead",
            EngineOption::ClockDelay => "Clock Delay",
            EngineOption::MultiPv => "MultiPV",
            EngineOption::Ponder => "Ponder",
            EngineOption::Chess960 => "UCI_Chess960",
        }
    }

    /// Finds an option by name, ignoring case and repeated spaces.
    pub fn find(name: &str) -> Option<EngineOption> {
        let wanted = name.split_whitespace().collect::<Vec<_>>().join(" ");
        OPTIONS
            .into_iter()
            .find(|o| o.name().eq_ignore_ascii_case(&wanted))
    }

    /// `(default, min, max)` of a spin option.
    fn spin_range(self) -> Option<(i64, i64, i64)> {
        match self {
            EngineOption::Hash => Some((
                sessa_engine::threads::DEFAULT_HASH_MB as i64,
                1,
                MAX_HASH_MB,
            )),
            EngineOption::Threads => Some((1, 1, sessa_engine::threads::MAX_THREADS as i64)),
            EngineOption::MoveOverhead => Some((
                sessa_engine::threads::DEFAULT_MOVE_OVERHEAD_MS as i64,
                0,
                5000,
            )),
            EngineOption::ClockDelay => Some((0, 0, 600_000)),
            EngineOption::MultiPv => Some((1, 1, MAX_MULTIPV)),
            _ => None,
        }
    }

    /// The `option name ... type ...` line of the `uci` answer.
    pub fn declaration(self) -> String {
        let name = self.name();
        match self {
            EngineOption::ClearHash => format!("option name {name} type button"),
            EngineOption::Ponder | EngineOption::Chess960 => {
                format!("option name {name} type check default false")
            }
            _ => {
                let (default, min, max) = self.spin_range().expect("spin options have a range");
                format!("option name {name} type spin default {default} min {min} max {max}")
            }
        }
    }

    /// Reads a spin value, refusing text and values out of range.
    pub fn parse_spin(self, value: &str) -> Result<i64, OptionError> {
        let (_, min, max) = self
            .spin_range()
            .ok_or_else(|| OptionError(format!("{} is not a spin option", self.name())))?;
        let number: i64 = value
            .trim()
            .parse()
            .map_err(|_| OptionError(format!("{} needs a number, got '{value}'", self.name())))?;
        if !(min..=max).contains(&number) {
            return Err(OptionError(format!(
                "{} must be between {min} and {max}, got {number}; unchanged",
                self.name()
            )));
        }
        Ok(number)
    }

    /// Reads a check value (`true` or `false`, any case).
    pub fn parse_check(self, value: &str) -> Result<bool, OptionError> {
        match value.trim().to_ascii_lowercase().as_str() {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err(OptionError(format!(
                "{} needs true or false, got '{value}'",
                self.name()
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_case_insensitive() {
        assert_eq!(EngineOption::find("hash"), Some(EngineOption::Hash));
        assert_eq!(
            EngineOption::find("clear  hash"),
            Some(EngineOption::ClearHash)
        );
        assert_eq!(
            EngineOption::find("MOVE OVERHEAD"),
            Some(EngineOption::MoveOverhead)
        );
        assert_eq!(EngineOption::find("nonsense"), None);
    }

    #[test]
    fn spin_values_are_checked() {
        assert_eq!(EngineOption::Hash.parse_spin("64"), Ok(64));
        assert!(EngineOption::Hash.parse_spin("0").is_err());
        assert!(EngineOption::Hash.parse_spin("lots").is_err());
        assert!(EngineOption::MoveOverhead.parse_spin("5001").is_err());
        assert!(EngineOption::Hash.parse_spin("65536").is_ok());
        assert_eq!(EngineOption::Ponder.parse_check("TRUE"), Ok(true));
        assert!(EngineOption::Ponder.parse_check("yes").is_err());
    }
}
