//! Games read from PGN with `pgn-reader`, kept whole (tags, comments, NAGs,
//! variations) so that they can be written back with annotations added.
//!
//! Only the main line is played through: its moves must be legal, while the
//! variations of the input are copied as written.

use pgn_reader::{Nag, Outcome, RawComment, RawTag, Reader, SanPlus, Skip, Visitor};
use sessa_engine::{Board, START_FEN};
use shakmaty::san::SanError;
use shakmaty::{CastlingMode, Color, Move, Position};
use std::io::{self, Read};
use std::ops::ControlFlow;

/// Longest line of movetext written, as the PGN standard asks.
const LINE_LENGTH: usize = 79;

/// `Variant` tag values that mean Chess960, compared without case.
const CHESS960_VARIANTS: [&str; 5] = [
    "chess960",
    "chess 960",
    "fischerandom",
    "fischerrandom",
    "fischer random",
];
/// `Variant` tag values that mean standard chess, compared without case.
const STANDARD_VARIANTS: [&str; 4] = ["", "standard", "normal", "from position"];

/// An element of movetext other than a main line move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Token {
    /// A move of a variation, as written.
    Move(SanPlus),
    /// A numeric annotation glyph (`$2`, or `?` in the input).
    Nag(u8),
    /// A comment, without its braces.
    Comment(String),
    /// A variation: an alternative to the move before it.
    Variation(Vec<Token>),
}

/// A main line move and what follows it in the input.
#[derive(Debug, Clone)]
pub struct MainlineMove {
    /// The move.
    pub mv: Move,
    /// Its standard SAN, with check or mate marked.
    pub san: SanPlus,
    /// The NAGs, comments and variations written after it, in order.
    pub after: Vec<Token>,
}

/// A game read from PGN.
#[derive(Debug, Clone)]
pub struct Game {
    /// Its number in its file, from 1.
    pub number: usize,
    /// The tags in the order read.
    pub tags: Vec<(String, String)>,
    /// The position the game starts from.
    pub start: Board,
    /// Comments and variations before the first move.
    pub before: Vec<Token>,
    /// The main line.
    pub moves: Vec<MainlineMove>,
    /// The game termination marker (`1-0`, `0-1`, `1/2-1/2` or `*`).
    pub result: String,
    /// What was mended in the `FEN` tag, in words.
    pub repairs: Vec<String>,
}

impl Game {
    /// The value of a tag, if the game has it.
    pub fn tag(&self, name: &str) -> Option<&str> {
        tag_value(&self.tags, name)
    }

    /// `White - Black` from the tags.
    pub fn players(&self) -> String {
        players(&self.tags)
    }
}

/// A game that could not be read, and why.
#[derive(Debug, Clone)]
pub struct BadGame {
    /// Its number in its file, from 1.
    pub number: usize,
    /// `White - Black`, when the tags were read.
    pub players: Option<String>,
    /// What is wrong.
    pub reason: String,
}

fn tag_value<'a>(tags: &'a [(String, String)], name: &str) -> Option<&'a str> {
    tags.iter()
        .find(|(tag, _)| tag == name)
        .map(|(_, value)| value.as_str())
}

fn players(tags: &[(String, String)]) -> String {
    let name = |tag| tag_value(tags, tag).unwrap_or("?");
    format!("{} - {}", name("White"), name("Black"))
}

/// Reads every game of a PGN text; the games that cannot be read come back
/// as [`BadGame`]s in their place. Only a failure to read `input` ends the
/// reading early.
pub fn read_games(input: impl Read) -> io::Result<Vec<Result<Game, BadGame>>> {
    let mut reader = Reader::new(input);
    let mut games = Vec::new();
    loop {
        let number = games.len() + 1;
        let mut visitor = GameReader { number };
        match reader.read_game(&mut visitor) {
            Ok(Some(game)) => games.push(game),
            Ok(None) => return Ok(games),
            Err(e) if e.kind() == io::ErrorKind::InvalidData => games.push(Err(BadGame {
                number,
                players: None,
                reason: e.to_string(),
            })),
            Err(e) => return Err(e),
        }
    }
}

/// Builds a [`Game`] from the reader's calls.
struct GameReader {
    number: usize,
}

/// A game being read: the tags, then the moves.
struct GameInProgress {
    tags: Vec<(String, String)>,
    game: Option<Game>,
    /// The main line position.
    board: Board,
    /// The variations open, innermost last.
    open: Vec<Vec<Token>>,
}

impl GameInProgress {
    fn bad(&self, number: usize, reason: String) -> Result<Game, BadGame> {
        Err(BadGame {
            number,
            players: Some(players(&self.tags)),
            reason,
        })
    }

    /// Where a token other than a main line move goes.
    fn tokens(&mut self) -> &mut Vec<Token> {
        let game = self.game.as_mut().expect("movetext follows the tags");
        if let Some(innermost) = self.open.last_mut() {
            innermost
        } else if let Some(last) = game.moves.last_mut() {
            &mut last.after
        } else {
            &mut game.before
        }
    }
}

/// The position a game starts from, by its `Variant` and `FEN` tags, and
/// what was mended in the FEN.
fn start_position(tags: &[(String, String)]) -> Result<(Board, Vec<String>), String> {
    let variant = tag_value(tags, "Variant")
        .unwrap_or("")
        .trim()
        .to_lowercase();
    let mode = if CHESS960_VARIANTS.contains(&variant.as_str()) {
        CastlingMode::Chess960
    } else if STANDARD_VARIANTS.contains(&variant.as_str()) {
        CastlingMode::Standard
    } else {
        return Err(format!("variant {variant:?} is not supported"));
    };
    let fen = tag_value(tags, "FEN").unwrap_or(START_FEN);
    let (board, repairs) =
        Board::from_fen_repaired(fen, mode).map_err(|e| format!("FEN {fen:?}: {e}"))?;
    let repairs = repairs
        .into_iter()
        .filter(|r| !matches!(r, sessa_engine::Repair::MoveCounters { .. }))
        .map(|r| r.to_string())
        .collect();
    Ok((board, repairs))
}

impl Visitor for GameReader {
    type Tags = Vec<(String, String)>;
    type Movetext = GameInProgress;
    type Output = Result<Game, BadGame>;

    fn begin_tags(&mut self) -> ControlFlow<Self::Output, Self::Tags> {
        ControlFlow::Continue(Vec::new())
    }

    fn tag(
        &mut self,
        tags: &mut Self::Tags,
        name: &[u8],
        value: RawTag<'_>,
    ) -> ControlFlow<Self::Output> {
        tags.push((
            String::from_utf8_lossy(name).into_owned(),
            value.decode_utf8_lossy().into_owned(),
        ));
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, tags: Self::Tags) -> ControlFlow<Self::Output, Self::Movetext> {
        let mut in_progress = GameInProgress {
            tags,
            game: None,
            board: Board::startpos(),
            open: Vec::new(),
        };
        match start_position(&in_progress.tags) {
            Ok((board, repairs)) => {
                in_progress.game = Some(Game {
                    number: self.number,
                    tags: in_progress.tags.clone(),
                    start: board.clone(),
                    before: Vec::new(),
                    moves: Vec::new(),
                    result: tag_value(&in_progress.tags, "Result")
                        .filter(|r| ["1-0", "0-1", "1/2-1/2", "*"].contains(r))
                        .unwrap_or("*")
                        .to_string(),
                    repairs,
                });
                in_progress.board = board;
                ControlFlow::Continue(in_progress)
            }
            Err(reason) => ControlFlow::Break(in_progress.bad(self.number, reason)),
        }
    }

    fn san(
        &mut self,
        movetext: &mut Self::Movetext,
        san_plus: SanPlus,
    ) -> ControlFlow<Self::Output> {
        if let Some(innermost) = movetext.open.last_mut() {
            innermost.push(Token::Move(san_plus));
            return ControlFlow::Continue(());
        }
        let board = &mut movetext.board;
        match san_plus.san.to_move(board.position()) {
            Ok(mv) => {
                let san = SanPlus::from_move(board.position().clone(), mv);
                board.play_game_move(mv);
                let game = movetext.game.as_mut().expect("movetext follows the tags");
                game.moves.push(MainlineMove {
                    mv,
                    san,
                    after: Vec::new(),
                });
                ControlFlow::Continue(())
            }
            Err(e) => {
                let pos = board.position();
                let verdict = match e {
                    SanError::AmbiguousSan => "is ambiguous",
                    SanError::IllegalSan => "is illegal",
                };
                let reason = format!(
                    "{} {san_plus} {verdict} in {}",
                    move_number(pos.fullmoves().get(), pos.turn(), true),
                    board.fen()
                );
                ControlFlow::Break(movetext.bad(self.number, reason))
            }
        }
    }

    fn nag(&mut self, movetext: &mut Self::Movetext, nag: Nag) -> ControlFlow<Self::Output> {
        movetext.tokens().push(Token::Nag(nag.0));
        ControlFlow::Continue(())
    }

    fn comment(
        &mut self,
        movetext: &mut Self::Movetext,
        comment: RawComment<'_>,
    ) -> ControlFlow<Self::Output> {
        let text = String::from_utf8_lossy(comment.as_bytes())
            .trim()
            .to_string();
        movetext.tokens().push(Token::Comment(text));
        ControlFlow::Continue(())
    }

    fn begin_variation(
        &mut self,
        movetext: &mut Self::Movetext,
    ) -> ControlFlow<Self::Output, Skip> {
        movetext.open.push(Vec::new());
        ControlFlow::Continue(Skip(false))
    }

    fn end_variation(&mut self, movetext: &mut Self::Movetext) -> ControlFlow<Self::Output> {
        if let Some(variation) = movetext.open.pop() {
            movetext.tokens().push(Token::Variation(variation));
        }
        ControlFlow::Continue(())
    }

    fn outcome(
        &mut self,
        movetext: &mut Self::Movetext,
        outcome: Outcome,
    ) -> ControlFlow<Self::Output> {
        if movetext.open.is_empty()
            && let Some(game) = movetext.game.as_mut()
        {
            game.result = outcome.to_string();
        }
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, mut movetext: Self::Movetext) -> Self::Output {
        // A variation left open at the end of the game still belongs to it.
        while let Some(variation) = movetext.open.pop() {
            movetext.tokens().push(Token::Variation(variation));
        }
        Ok(movetext.game.expect("movetext follows the tags"))
    }
}

/// The move number as PGN writes it before a move: `12.` for White, `12...`
/// for Black (only `black_number` says whether Black's is wanted at all).
pub fn move_number(fullmove: u32, turn: Color, black_number: bool) -> String {
    match turn {
        Color::White => format!("{fullmove}."),
        Color::Black if black_number => format!("{fullmove}..."),
        Color::Black => String::new(),
    }
}

/// What the annotator adds to a main line move.
#[derive(Debug, Clone, Default)]
pub struct Addition {
    /// A move assessment written after the move (`?!`, `?` or `??`),
    /// replacing any the input gave it (`$1` to `$6`).
    pub mark: Option<&'static str>,
    /// Comment text written first after the move, in one comment with the
    /// input's first comment there, if any.
    pub comment: Option<String>,
    /// A variation (a better move and its line), written after the input's.
    pub variation: Option<Vec<Token>>,
}

/// Move assessment glyphs, `$1` (`!`) to `$6` (`?!`).
const MOVE_ASSESSMENTS: std::ops::RangeInclusive<u8> = 1..=6;

/// Movetext being written, wrapped at [`LINE_LENGTH`].
struct MovetextWriter {
    text: String,
    line_length: usize,
    /// Written before the next token without a space (an opening parenthesis).
    prefix: String,
}

impl MovetextWriter {
    fn push(&mut self, token: &str) {
        let token = std::mem::take(&mut self.prefix) + token;
        if self.line_length > 0 {
            if self.line_length + 1 + token.len() > LINE_LENGTH {
                self.text.push('\n');
                self.line_length = 0;
            } else {
                self.text.push(' ');
                self.line_length += 1;
            }
        }
        self.text.push_str(&token);
        self.line_length += token.len();
    }

    /// Appends to the last token without a space (a closing parenthesis).
    fn append(&mut self, text: &str) {
        self.text.push_str(text);
        self.line_length += text.len();
    }

    fn open_variation(&mut self) {
        self.prefix.push('(');
    }
}

/// Where the movetext writer stands: the ply about to be played and whether
/// a Black move needs its number (at the start or after a comment or
/// variation).
#[derive(Clone, Copy)]
struct Ply {
    /// Half moves since move 1 with White to move.
    index: u32,
    number_due: bool,
}

impl Ply {
    fn of(board: &Board) -> Ply {
        let pos = board.position();
        let index = (pos.fullmoves().get() - 1) * 2 + u32::from(pos.turn() == Color::Black);
        Ply {
            index,
            number_due: true,
        }
    }

    fn number(&self) -> String {
        let turn = if self.index.is_multiple_of(2) {
            Color::White
        } else {
            Color::Black
        };
        move_number(self.index / 2 + 1, turn, self.number_due)
    }

    fn write_move(&mut self, out: &mut MovetextWriter, san: &str) {
        // The number stays on the line of its move.
        let number = self.number();
        if number.is_empty() {
            out.push(san);
        } else {
            out.push(&format!("{number} {san}"));
        }
        self.index += 1;
        self.number_due = false;
    }
}

fn write_comment(out: &mut MovetextWriter, text: &str) {
    out.push(&format!("{{ {text} }}"));
}

/// Writes tokens of an input variation (or of the text before the first
/// move), whose first move is at `ply`.
fn write_tokens(out: &mut MovetextWriter, tokens: &[Token], mut ply: Ply) {
    let mut last_move_ply = ply;
    for token in tokens {
        match token {
            Token::Move(san) => {
                last_move_ply = ply;
                ply.write_move(out, &san.to_string());
            }
            Token::Nag(nag) => out.push(&format!("${nag}")),
            Token::Comment(text) => {
                write_comment(out, text);
                ply.number_due = true;
            }
            Token::Variation(tokens) => {
                write_variation(out, tokens, last_move_ply);
                ply.number_due = true;
            }
        }
    }
}

fn write_variation(out: &mut MovetextWriter, tokens: &[Token], first: Ply) {
    out.open_variation();
    write_tokens(
        out,
        tokens,
        Ply {
            number_due: true,
            ..first
        },
    );
    out.append(")");
}

/// Removes `[%eval ...]` commands from an input comment: the annotator
/// writes its own.
fn without_eval(comment: &str) -> String {
    let mut kept = String::new();
    let mut rest = comment;
    while let Some(start) = rest.find("[%eval") {
        kept.push_str(&rest[..start]);
        match rest[start..].find(']') {
            Some(end) => rest = &rest[start + end + 1..],
            None => rest = "",
        }
    }
    kept.push_str(rest);
    kept.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Writes `game` as PGN with `tags` and the additions, one per main line
/// move, followed by an empty line.
pub fn write_game(game: &Game, tags: &[(String, String)], additions: &[Addition]) -> String {
    let mut text = String::new();
    for (name, value) in tags {
        let value = value.replace('\\', "\\\\").replace('"', "\\\"");
        text.push_str(&format!("[{name} \"{value}\"]\n"));
    }
    text.push('\n');
    let mut out = MovetextWriter {
        text,
        line_length: 0,
        prefix: String::new(),
    };
    let mut ply = Ply::of(&game.start);
    write_tokens(&mut out, &game.before, ply);
    if !game.before.is_empty() {
        ply.number_due = true;
    }
    let none = Addition::default();
    for (index, played) in game.moves.iter().enumerate() {
        let addition = additions.get(index).unwrap_or(&none);
        let move_ply = ply;
        let mut san = played.san.to_string();
        if let Some(mark) = addition.mark {
            san.push_str(mark);
        }
        ply.write_move(&mut out, &san);
        let assessments_replaced = addition.mark.is_some();
        for token in &played.after {
            if let Token::Nag(nag) = token
                && !(assessments_replaced && MOVE_ASSESSMENTS.contains(nag))
            {
                out.push(&format!("${nag}"));
            }
        }
        let mut comment_due = addition.comment.clone();
        for token in &played.after {
            match token {
                Token::Nag(_) | Token::Move(_) => {}
                Token::Comment(text) => {
                    let text = without_eval(text);
                    let text = match comment_due.take() {
                        Some(ours) if text.is_empty() => ours,
                        Some(ours) => format!("{ours} {text}"),
                        None => text,
                    };
                    if !text.is_empty() {
                        write_comment(&mut out, &text);
                        ply.number_due = true;
                    }
                }
                Token::Variation(tokens) => {
                    if let Some(ours) = comment_due.take() {
                        write_comment(&mut out, &ours);
                    }
                    write_variation(&mut out, tokens, move_ply);
                    ply.number_due = true;
                }
            }
        }
        if let Some(ours) = comment_due {
            write_comment(&mut out, &ours);
            ply.number_due = true;
        }
        if let Some(tokens) = &addition.variation {
            write_variation(&mut out, tokens, move_ply);
            ply.number_due = true;
        }
    }
    out.push(&game.result);
    out.text.push_str("\n\n");
    out.text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_one(pgn: &str) -> Result<Game, BadGame> {
        let mut games = read_games(pgn.as_bytes()).unwrap();
        assert_eq!(games.len(), 1);
        games.remove(0)
    }

    #[test]
    fn comments_variations_and_nags_come_back_in_place() {
        let game = read_one(
            "[Event \"Test\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n\
             { Opening } 1. e4 $1 { best by test } (1. d4 d5 (1... Nf6) 2. c4) 1... e5 \
             2. Nf3 Nc6 1-0\n",
        )
        .unwrap();
        assert_eq!(game.moves.len(), 4);
        let written = write_game(&game, &game.tags, &[]);
        assert_eq!(
            written,
            "[Event \"Test\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n\
             { Opening } 1. e4 $1 { best by test } (1. d4 d5 (1... Nf6) 2. c4) 1... e5\n\
             2. Nf3 Nc6 1-0\n\n"
        );
    }

    #[test]
    fn additions_replace_assessments_and_evals_of_the_input() {
        let game = read_one("1. e4 ?? { [%eval 0.3] [%clk 0:01:00] } e5 *").unwrap();
        let additions = [Addition {
            mark: Some("?!"),
            comment: Some("[%eval 0.17]".to_string()),
            variation: None,
        }];
        assert_eq!(
            write_game(&game, &[], &additions),
            "\n1. e4?! { [%eval 0.17] [%clk 0:01:00] } 1... e5 *\n\n"
        );
    }

    #[test]
    fn an_illegal_move_is_named() {
        let bad = read_one("[White \"A\"]\n[Black \"B\"]\n\n1. e4 e5 2. Ke3 *").unwrap_err();
        assert_eq!(bad.players.as_deref(), Some("A - B"));
        assert!(
            bad.reason.starts_with("2. Ke3 is illegal"),
            "{}",
            bad.reason
        );
    }

    #[test]
    fn chess960_castling_from_a_fen_tag() {
        let game = read_one(
            "[Variant \"Chess960\"]\n\
             [FEN \"bnrnqkrb/pppppppp/8/8/8/8/PPPPPPPP/BNRNQKRB w KQkq - 0 1\"]\n\n\
             1. O-O O-O 2. e3 *",
        )
        .unwrap();
        let castling = &game.moves[0];
        assert_eq!(castling.san.to_string(), "O-O");
        // The king steps onto the rook's square: written king takes rook.
        assert_eq!(
            castling.mv.to_uci(CastlingMode::Chess960).to_string(),
            "f1g1"
        );
        assert_eq!(game.moves[1].san.to_string(), "O-O");
    }

    #[test]
    fn unsupported_variants_and_bad_fens_are_refused() {
        let bad = read_one("[Variant \"Atomic\"]\n\n1. e4 *").unwrap_err();
        assert!(bad.reason.contains("atomic"), "{}", bad.reason);
        let bad = read_one("[FEN \"8/8/8/8/8/8/8/8 w - - 0 1\"]\n\n1. e4 *").unwrap_err();
        assert!(bad.reason.starts_with("FEN"), "{}", bad.reason);
    }
}
