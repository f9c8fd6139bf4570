//! Random and grammar-mutated UCI input for the fuzz tests: commands built
//! from the protocol's grammar with broken FENs and moves, garbage, negative
//! and huge numbers, odd option names and values, arbitrary text, very long
//! lines, stray whitespace and CRLF line ends.
//!
//! Left out are lines that end the session or block it by design (`quit`,
//! and the debug commands `perft` and `bench`, which run to completion), and
//! in-range `Hash` and `Threads` values that only cost memory and time
//! (a terabyte of table, a thousand threads): each has a test of its own.

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;

/// First words that the generated lines never start with (see above).
pub const LEFT_OUT: [&str; 3] = ["quit", "perft", "bench"];

/// Positions that mutations start from: ordinary, castling-rich, en
/// passant, Chess960 (Shredder and X-FEN), and nearly finished games.
const FENS: [&str; 8] = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "1r2k1r1/8/8/8/8/8/8/1R2K1R1 w GBgb - 0 1",
    "rk4r1/8/8/8/8/8/8/RK4R1 w KQkq - 0 1",
    "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
    "8/8/8/8/8/8/6k1/4K2R w K - 99 80",
    "4k3/8/8/8/8/8/8/4K3 w - e3 0 1",
];

/// Characters that mutations put into FENs.
const FEN_CHARS: &[char] = &[
    'p', 'n', 'b', 'r', 'q', 'k', 'P', 'N', 'B', 'R', 'Q', 'K', '1', '2', '7', '8', '9', '0', '/',
    ' ', '-', 'w', 'A', 'H', 'e', '3', '6', '\0', 'é',
];

/// A number as a UCI field may hold it, or a word that is not one.
pub fn number() -> impl Strategy<Value = String> {
    prop_oneof![
        select(vec![
            "0",
            "1",
            "-1",
            "5",
            "30",
            "1000",
            "-0",
            "+7",
            "2147483647",
            "4294967296",
            "9223372036854775807",
            "-9223372036854775808",
            "18446744073709551616",
            "999999999999999999999999",
            "1e3",
            "0x10",
            "3.5",
            "abc",
            "",
        ])
        .prop_map(String::from),
        any::<i64>().prop_map(|n| n.to_string()),
        (0u32..5000).prop_map(|n| n.to_string()),
    ]
}

fn square() -> impl Strategy<Value = String> {
    ("[a-i]", "[0-9]").prop_map(|(file, rank)| format!("{file}{rank}"))
}

/// A move token: legal-looking, illegal, or garbage.
pub fn move_token() -> impl Strategy<Value = String> {
    prop_oneof![
        select(vec![
            "e2e4", "e7e5", "g1f3", "g8f6", "f3g1", "f6g8", "e1g1", "e1h1", "e8c8", "e7e8q",
            "a7a8n", "0000", "(none)", "e2e5", "zz", "e2", "e2e4e4", "E2E4", "h8h8", "e1e1q",
            "O-O", "Nf3", "moves",
        ])
        .prop_map(String::from),
        (square(), square(), "[qrbnkx]?")
            .prop_map(|(from, to, promotion)| { format!("{from}{to}{promotion}") }),
        "[a-z0-9]{0,6}",
    ]
}

/// One way to damage a FEN.
#[derive(Debug, Clone)]
enum Damage {
    DeleteChar(usize),
    InsertChar(usize, char),
    ReplaceChar(usize, char),
    Truncate(usize),
    DropField(usize),
    SwapFields(usize, usize),
    ReplaceField(usize, String),
}

fn damage() -> impl Strategy<Value = Damage> {
    let index = any::<usize>();
    let fen_char = select(FEN_CHARS);
    prop_oneof![
        index.prop_map(Damage::DeleteChar),
        (index, fen_char.clone()).prop_map(|(at, c)| Damage::InsertChar(at, c)),
        (index, fen_char).prop_map(|(at, c)| Damage::ReplaceChar(at, c)),
        index.prop_map(Damage::Truncate),
        index.prop_map(Damage::DropField),
        (index, index).prop_map(|(a, b)| Damage::SwapFields(a, b)),
        (
            index,
            prop_oneof![number(), move_token(), "[KQkqA-Ha-h-]{0,5}"]
        )
            .prop_map(|(at, text)| Damage::ReplaceField(at, text)),
    ]
}

fn apply(fen: &str, damage: &Damage) -> String {
    let chars: Vec<char> = fen.chars().collect();
    let mut fields: Vec<String> = fen.split(' ').map(String::from).collect();
    let at = |i: usize, len: usize| i % len.max(1);
    match damage {
        Damage::DeleteChar(i) if !chars.is_empty() => {
            let i = at(*i, chars.len());
            chars[..i].iter().chain(&chars[i + 1..]).collect()
        }
        Damage::InsertChar(i, c) => {
            let i = at(*i, chars.len() + 1);
            chars[..i]
                .iter()
                .chain(std::iter::once(c))
                .chain(&chars[i..])
                .collect()
        }
        Damage::ReplaceChar(i, c) if !chars.is_empty() => {
            let i = at(*i, chars.len());
            let mut chars = chars;
            chars[i] = *c;
            chars.into_iter().collect()
        }
        Damage::Truncate(i) => chars[..at(*i, chars.len() + 1)].iter().collect(),
        Damage::DropField(i) if !fields.is_empty() => {
            fields.remove(at(*i, fields.len()));
            fields.join(" ")
        }
        Damage::SwapFields(a, b) if !fields.is_empty() => {
            let (a, b) = (at(*a, fields.len()), at(*b, fields.len()));
            fields.swap(a, b);
            fields.join(" ")
        }
        Damage::ReplaceField(i, text) if !fields.is_empty() => {
            let i = at(*i, fields.len());
            fields[i] = text.clone();
            fields.join(" ")
        }
        _ => fen.to_string(),
    }
}

/// A FEN from [`FENS`], unchanged or with a few kinds of damage.
pub fn fen() -> impl Strategy<Value = String> {
    (select(FENS.to_vec()), vec(damage(), 0..4)).prop_map(|(fen, damages)| {
        damages
            .iter()
            .fold(fen.to_string(), |fen, damage| apply(&fen, damage))
    })
}

/// A `position` command: start position or a FEN, perhaps with moves.
pub fn position() -> impl Strategy<Value = String> {
    let setup = prop_oneof![
        Just("startpos".to_string()),
        fen().prop_map(|fen| format!("fen {fen}")),
        Just("fen".to_string()),
        Just(String::new()),
        "[a-z ]{0,12}",
    ];
    (
        setup,
        proptest::option::of(vec(move_token(), 0..12)),
        any::<bool>(),
    )
        .prop_map(|(setup, moves, keyword_case)| {
            let mut line = if keyword_case {
                format!("position {setup}")
            } else {
                format!("position  {setup} ")
            };
            if let Some(moves) = moves {
                line.push_str(" moves ");
                line.push_str(&moves.join(" "));
            }
            line
        })
}

/// A `go` command with fields, numbers and garbage in any order.
pub fn go() -> impl Strategy<Value = String> {
    let field = prop_oneof![
        select(vec![
            "wtime",
            "btime",
            "winc",
            "binc",
            "movestogo",
            "depth",
            "nodes",
            "mate",
            "movetime",
            "infinite",
            "ponder",
            "searchmoves",
        ])
        .prop_map(String::from),
        number(),
        move_token(),
    ];
    vec(field, 0..10).prop_map(|fields| format!("go {}", fields.join(" ")))
}

/// A `setoption` command with odd names and values. Values stay out of
/// the range of the options that would cost real memory or threads.
pub fn setoption() -> impl Strategy<Value = String> {
    let keyword = select(vec!["name", "NAME", "Name", "", "value"]);
    let name = prop_oneof![
        select(vec![
            "Hash",
            "hash",
            "Threads",
            "Clear Hash",
            "clear  hash",
            "Move Overhead",
            "Clock Delay",
            "Ponder",
            "UCI_Chess960",
            "No Such Option",
            "",
            "value",
            "name",
        ])
        .prop_map(String::from),
        "[ -~]{0,12}",
    ];
    let value = prop_oneof![
        select(vec![
            "-5",
            "0",
            "1",
            "2",
            "3",
            "8",
            "1048577",
            "99999999999999",
            "true",
            "false",
            "TRUE",
            "maybe",
            "",
            "abc def",
            " 8 ",
        ])
        .prop_map(String::from),
        "[ -~]{0,8}",
    ];
    (
        keyword,
        name,
        proptest::option::of((select(vec!["value", "VALUE", ""]), value)),
    )
        .prop_map(|(keyword, name, value)| match value {
            Some((value_keyword, value)) => {
                format!("setoption {keyword} {name} {value_keyword} {value}")
            }
            None => format!("setoption {keyword} {name}"),
        })
}

/// A line tens or hundreds of kilobytes long.
pub fn long_line() -> impl Strategy<Value = String> {
    prop_oneof![
        (100usize..1500).prop_map(|cycles| {
            let knights = ["g1f3", "g8f6", "f3g1", "f6g8"];
            let moves: Vec<&str> = knights.iter().copied().cycle().take(4 * cycles).collect();
            format!("position startpos moves {}", moves.join(" "))
        }),
        (1000usize..20000).prop_map(|n| format!("go {}", "depth 1 ".repeat(n))),
        ("[ -~]{1,8}", 1000usize..50000).prop_map(|(word, n)| format!("{word} ").repeat(n)),
        (1000usize..20000).prop_map(|n| format!("setoption name {} value 1", "x".repeat(n))),
    ]
}

/// Whether a line starts with a word of [`LEFT_OUT`].
pub fn is_left_out(line: &str) -> bool {
    line.split_whitespace()
        .next()
        .is_some_and(|word| LEFT_OUT.contains(&word))
}

/// One input line, without its line feed: a command of the grammar or
/// arbitrary text, with stray whitespace and perhaps a carriage return.
pub fn line() -> impl Strategy<Value = String> {
    let command = prop_oneof![
        4 => position(),
        4 => go(),
        3 => setoption(),
        3 => select(vec![
            "uci",
            "isready",
            "ucinewgame",
            "stop",
            "ponderhit",
            "debug on",
            "debug off",
            "debug",
            "d",
            "eval",
            "xboard",
            "protover 2",
            "isready now",
            "stop stop",
            "position startpos",
            "go",
            "go infinite",
            "go ponder",
        ])
        .prop_map(String::from),
        2 => any::<String>(),
        1 => long_line(),
    ];
    (
        command,
        select(vec!["", " ", "\t", "  \t "]),
        select(vec!["", "\r", " \r", "\t"]),
    )
        .prop_map(|(command, lead, end)| format!("{lead}{command}{end}"))
        .prop_filter("ends or blocks the session by design", |line| {
            !line.contains('\n') && !is_left_out(line)
        })
}

/// A session's worth of input lines.
pub fn session(max_lines: usize) -> impl Strategy<Value = Vec<String>> {
    vec(line(), 1..max_lines)
}
