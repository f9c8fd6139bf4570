"""Complete games of Sessa against itself, driven by python-chess's UCI client.

Usage: python3 python_chess_games.py <path to the sessa binary>

Three games, each between two processes of the engine: one at 2 s + 0.02 s,
one at 20 moves in 2 s (the period repeating), and one at 2 s + 0.02 s with
2 threads and pondering (python-chess sends `go ponder` and `ponderhit`).
This script keeps the clocks: a move's time is measured around the client's
call, and the game fails if a clock goes below zero. Every move must be
legal, and every game must end by a rule: checkmate, stalemate, threefold
repetition, the 50-move rule or insufficient material. The start positions
have no pawns, so the 50-move rule ends every game within 100 half-moves of
its last capture and no game needs adjudication.

Exits with status 0 when every game passes, 1 with the reason otherwise.
"""

import logging
import sys
import time

import chess
import chess.engine

# The longest a game can last from these start positions: 100 half-moves
# after each of at most three captures, and before the first.
MAX_PLIES = 400


class SentLines(logging.Handler):
    """Counts the commands python-chess sends to the engines."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.go_ponder = 0
        self.ponderhit = 0

    def emit(self, record):
        message = record.getMessage()
        if "<< go ponder" in message:
            self.go_ponder += 1
        elif message.endswith("<< ponderhit"):
            self.ponderhit += 1


class GameFailed(Exception):
    """A game broke a rule of this test."""


class Clock:
    """Both players' clocks: Fischer increment, or moves per period."""

    def __init__(self, seconds, increment=0.0, moves_per_period=None):
        self.seconds = seconds
        self.increment = increment
        self.moves_per_period = moves_per_period
        self.left = {chess.WHITE: seconds, chess.BLACK: seconds}
        self.moves_to_go = {chess.WHITE: moves_per_period, chess.BLACK: moves_per_period}
        self.lowest = seconds

    def limit(self, turn):
        return chess.engine.Limit(
            white_clock=self.left[chess.WHITE],
            black_clock=self.left[chess.BLACK],
            white_inc=self.increment,
            black_inc=self.increment,
            remaining_moves=self.moves_to_go[turn],
        )

    def spend(self, turn, used):
        self.left[turn] -= used
        self.lowest = min(self.lowest, self.left[turn])
        if self.left[turn] < 0:
            raise GameFailed(f"{chess.COLOR_NAMES[turn]}'s clock fell to {self.left[turn]:.3f} s")
        self.left[turn] += self.increment
        if self.moves_per_period:
            self.moves_to_go[turn] -= 1
            if self.moves_to_go[turn] == 0:
                self.left[turn] += self.seconds
                self.moves_to_go[turn] = self.moves_per_period


def play_game(engine_path, name, fen, clock, threads=1, ponder=False):
    board = chess.Board(fen)
    game = object()
    engines = {}
    try:
        for color in chess.COLORS:
            engines[color] = chess.engine.SimpleEngine.popen_uci(engine_path)
            engines[color].configure({"Threads": threads, "Hash": 16})
        while board.outcome(claim_draw=True) is None:
            if board.ply() >= MAX_PLIES:
                raise GameFailed(f"no rule ended the game within {MAX_PLIES} half-moves")
            turn = board.turn
            started = time.perf_counter()
            try:
                result = engines[turn].play(board, clock.limit(turn), game=game, ponder=ponder)
            except chess.engine.EngineError as error:
                raise GameFailed(f"at {board.fen()}: {error}") from error
            clock.spend(turn, time.perf_counter() - started)
            if result.move is None or result.move not in board.legal_moves:
                raise GameFailed(f"no legal move ({result.move}) in {board.fen()}")
            board.push(result.move)
    except GameFailed as failure:
        raise GameFailed(f"{name}: {failure}; moves {board.move_stack}") from failure
    finally:
        for engine in engines.values():
            engine.quit()
    outcome = board.outcome(claim_draw=True)
    print(
        f"{name}: {board.ply()} half-moves, {outcome.result()} by "
        f"{outcome.termination.name.lower()}, lowest clock {clock.lowest:.3f} s",
        flush=True,
    )


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    engine_path = sys.argv[1]
    sent = SentLines()
    logging.getLogger("chess.engine").addHandler(sent)
    logging.getLogger("chess.engine").setLevel(logging.DEBUG)
    print(f"python-chess {chess.__version__}", flush=True)
    try:
        # Rook against king: a mate within about 15 moves, with a castling right.
        play_game(
            engine_path,
            "2 s + 0.02 s",
            "8/8/8/4k3/8/8/8/R3K3 w Q - 0 1",
            Clock(2.0, increment=0.02),
        )
        # Queen against rook: a long win, or the 50-move rule.
        play_game(
            engine_path,
            "20 moves in 2 s",
            "8/8/8/2k5/8/8/1r6/3QK3 w - - 0 1",
            Clock(2.0, moves_per_period=20),
        )
        # Rook and knight against rook: a draw by repetition, the 50-move
        # rule or, after trades, insufficient material.
        play_game(
            engine_path,
            "2 s + 0.02 s, 2 threads, ponder",
            "8/8/4k3/8/8/1r6/5N2/3RK3 w - - 0 1",
            Clock(2.0, increment=0.02),
            threads=2,
            ponder=True,
        )
    except GameFailed as failure:
        print(f"FAILED: {failure}", flush=True)
        return 1
    print(f"ponder commands sent: {sent.go_ponder} go ponder, {sent.ponderhit} ponderhit")
    if sent.go_ponder == 0 or sent.ponderhit == 0:
        print("FAILED: the ponder game sent no go ponder or no ponderhit", flush=True)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
