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
    /// Empties the transposition table and makes the search threads forget
    /// their histories, as a new game does.
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
    /// The evaluation network file (`<internal>`: the one built in).
    EvalFile,
    /// The GUI says it analyses rather than plays a game.
    AnalyseMode,
    /// Whether `info` lines carry win/draw/loss chances.
    ShowWdl,
    /// Whether the playing strength is limited to `UCI_Elo`.
    LimitStrength,
    /// The Elo a limited strength plays at.
    Elo,
    /// Folders of Syzygy tablebase files.
    SyzygyPath,
    /// Least depth left at which the search probes the tablebases.
    SyzygyProbeDepth,
    /// Whether cursed wins and blessed losses count as draws.
    Syzygy50MoveRule,
    /// Most pieces of a position the tablebases are probed for.
    SyzygyProbeLimit,
    /// File to which every line received and sent is appended.
    DebugLogFile,
}

/// What kind of value an option takes, with its default, as `uci` declares it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OptionKind {
    /// No value: setting it acts.
    Button,
    /// `true` or `false`.
    Check {
        /// The value before any `setoption`.
        default: bool,
    },
    /// An integer in `min..=max`.
    Spin {
        /// The value before any `setoption`.
        default: i64,
        /// Smallest value accepted.
        min: i64,
        /// Largest value accepted.
        max: i64,
    },
    /// Text: the rest of the `setoption` line.
    String {
        /// The value before any `setoption`.
        default: &'static str,
    },
}

/// Every option, in the order `uci` lists them.
pub const OPTIONS: [EngineOption; 18] = [
    EngineOption::Hash,
    EngineOption::Threads,
    EngineOption::ClearHash,
    EngineOption::MoveOverhead,
    EngineOption::ClockDelay,
    EngineOption::MultiPv,
    EngineOption::Ponder,
    EngineOption::Chess960,
    EngineOption::EvalFile,
    EngineOption::AnalyseMode,
    EngineOption::ShowWdl,
    EngineOption::LimitStrength,
    EngineOption::Elo,
    EngineOption::SyzygyPath,
    EngineOption::SyzygyProbeDepth,
    EngineOption::Syzygy50MoveRule,
    EngineOption::SyzygyProbeLimit,
    EngineOption::DebugLogFile,
];

/// The `EvalFile` value that selects the network built into the binary.
pub const INTERNAL_NETWORK: &str = "<internal>";

/// Largest hash size offered, in MB (1 TB).
pub const MAX_HASH_MB: i64 = 1 << 20;
/// Most lines MultiPV offers.
pub const MAX_MULTIPV: i64 = 256;
/// The value of a path option (`SyzygyPath`, `Debug Log File`) that stands
/// for none, as GUIs show it.
pub const EMPTY_PATH: &str = "<empty>";

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
            EngineOption::EvalFile => "EvalFile",
            EngineOption::AnalyseMode => "UCI_AnalyseMode",
            EngineOption::ShowWdl => "UCI_ShowWDL",
            EngineOption::LimitStrength => "UCI_LimitStrength",
            EngineOption::Elo => "UCI_Elo",
            EngineOption::SyzygyPath => "SyzygyPath",
            EngineOption::SyzygyProbeDepth => "SyzygyProbeDepth",
            EngineOption::Syzygy50MoveRule => "Syzygy50MoveRule",
            EngineOption::SyzygyProbeLimit => "SyzygyProbeLimit",
            EngineOption::DebugLogFile => "Debug Log File",
        }
    }

    /// Finds an option by name, ignoring case and repeated spaces.
    pub fn find(name: &str) -> Option<EngineOption> {
        let wanted = name.split_whitespace().collect::<Vec<_>>().join(" ");
        OPTIONS
            .into_iter()
            .find(|o| o.name().eq_ignore_ascii_case(&wanted))
    }

    /// The kind of value the option takes and its default.
    pub fn kind(self) -> OptionKind {
        let spin = |default: i64, min: i64, max: i64| OptionKind::Spin { default, min, max };
        match self {
            EngineOption::Hash => {
                spin(sessa_engine::engine::DEFAULT_HASH_MB as i64, 1, MAX_HASH_MB)
            }
            EngineOption::Threads => spin(1, 1, sessa_engine::threads::MAX_THREADS as i64),
            EngineOption::ClearHash => OptionKind::Button,
            EngineOption::MoveOverhead => spin(
                sessa_engine::engine::DEFAULT_MOVE_OVERHEAD_MS as i64,
                0,
                5000,
            ),
            EngineOption::ClockDelay => spin(0, 0, 600_000),
            EngineOption::MultiPv => spin(1, 1, MAX_MULTIPV),
            EngineOption::Ponder
            | EngineOption::Chess960
            | EngineOption::AnalyseMode
            | EngineOption::ShowWdl
            | EngineOption::LimitStrength => OptionKind::Check { default: false },
            EngineOption::Elo => spin(
                i64::from(sessa_engine::strength::MIN_ELO),
                i64::from(sessa_engine::strength::MIN_ELO),
                i64::from(sessa_engine::strength::MAX_ELO),
            ),
            EngineOption::SyzygyPath | EngineOption::DebugLogFile => OptionKind::String {
                default: EMPTY_PATH,
            },
            EngineOption::EvalFile => OptionKind::String {
                default: INTERNAL_NETWORK,
            },
            EngineOption::SyzygyProbeDepth => spin(1, 1, 100),
            EngineOption::Syzygy50MoveRule => OptionKind::Check { default: true },
            EngineOption::SyzygyProbeLimit => spin(7, 0, 7),
        }
    }

    /// The `option name ... type ...` line of the `uci` answer.
    pub fn declaration(self) -> String {
        let name = self.name();
        match self.kind() {
            OptionKind::Button => format!("option name {name} type button"),
            OptionKind::Check { default } => {
                format!("option name {name} type check default {default}")
            }
            OptionKind::Spin { default, min, max } => {
                format!("option name {name} type spin default {default} min {min} max {max}")
            }
            OptionKind::String { default } => {
                format!("option name {name} type string default {default}")
            }
        }
    }

    /// Reads a spin value, refusing text and values out of range.
    pub fn parse_spin(self, value: &str) -> Result<i64, OptionError> {
        let OptionKind::Spin { min, max, .. } = self.kind() else {
            return Err(OptionError(format!("{} is not a spin option", self.name())));
        };
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
        assert_eq!(
            EngineOption::find("debug  LOG file"),
            Some(EngineOption::DebugLogFile)
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

    #[test]
    fn declarations_follow_the_kind() {
        assert_eq!(
            EngineOption::MultiPv.declaration(),
            "option name MultiPV type spin default 1 min 1 max 256"
        );
        assert_eq!(
            EngineOption::AnalyseMode.declaration(),
            "option name UCI_AnalyseMode type check default false"
        );
        assert_eq!(
            EngineOption::ClearHash.declaration(),
            "option name Clear Hash type button"
        );
        assert!(EngineOption::Ponder.parse_spin("1").is_err());
        assert_eq!(
            EngineOption::SyzygyPath.declaration(),
            "option name SyzygyPath type string default <empty>"
        );
        assert_eq!(
            EngineOption::Syzygy50MoveRule.declaration(),
            "option name Syzygy50MoveRule type check default true"
        );
        assert_eq!(EngineOption::SyzygyProbeLimit.parse_spin("0"), Ok(0));
        assert!(EngineOption::SyzygyProbeLimit.parse_spin("8").is_err());
    }
}
