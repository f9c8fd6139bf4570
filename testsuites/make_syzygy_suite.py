# Generates testsuites/syzygy-4.epd (see testsuites/README.md) from the 3- and
# 4-piece Syzygy tables with python-chess 1.11.2. Seeded, so it is
# reproducible: python3 make_syzygy_suite.py /path/to/syzygy > syzygy-4.epd
import chess, chess.syzygy, random, sys
rng = random.Random(20261201)
tb = chess.syzygy.open_tablebase(sys.argv[1])
wins = ["KQvKR", "KRvKP", "KQvKP", "KBNvK", "KRPvK", "KBPvK", "KNPvK", "KPvKP", "KRvKN", "KRvKB", "KQvKN", "KQvKB"]
draws = ["KRvKB", "KRvKN", "KRvKP", "KQvKP", "KPvKP", "KRvKR", "KBvKP", "KNvKP"]
def random_position(material):
    white, black = material.split("v")
    squares = list(chess.SQUARES)
    while True:
        board = chess.Board(None)
        rng.shuffle(squares)
        ok = True
        for sq, sym in zip(squares, list(white) + [s.lower() for s in black]):
            piece = chess.Piece.from_symbol(sym)
            if piece.piece_type == chess.PAWN and chess.square_rank(sq) in (0, 7):
                ok = False
            board.set_piece_at(sq, piece)
        board.turn = rng.choice([chess.WHITE, chess.BLACK])
        if ok and board.is_valid() and not board.is_game_over():
            return board
def keeps_win(board, move, clock):
    """Whether `move` keeps a win that the 50-move rule lets stand."""
    zeroing = board.is_zeroing(move)
    board.push(move)
    try:
        if board.is_checkmate():
            return True
        if tb.probe_wdl(board) != -2:
            return False
        new_clock = 0 if zeroing else clock + 1
        return abs(tb.probe_dtz(board)) + new_clock <= 100
    finally:
        board.pop()
lines = []
seen = set()
count = {}
while len(lines) < 100:
    want_win = len(lines) < 60
    material = rng.choice(wins if want_win else draws)
    if count.get(material, 0) >= 8:
        continue
    board = random_position(material)
    wdl = tb.probe_wdl(board)
    if want_win:
        if wdl != 2:
            continue
        dtz = tb.probe_dtz(board)
        if dtz < 12:
            continue
        # A clock that leaves only a few plies of slack to convert.
        clock = 100 - dtz - rng.randint(1, 4)
        if clock < 0:
            continue
        keep = [m for m in board.legal_moves if keeps_win(board, m, clock)]
        result = "win"
    else:
        if wdl != 0:
            continue
        clock = 0
        keep = []
        for m in board.legal_moves:
            board.push(m)
            if not board.is_checkmate() and tb.probe_wdl(board) == 0:
                keep.append(m)
            board.pop()
        result = "draw"
    total = board.legal_moves.count()
    if not keep or len(keep) * 3 > total:
        continue
    epd = board.epd()
    if epd in seen:
        continue
    seen.add(epd)
    count[material] = count.get(material, 0) + 1
    bm = " ".join(board.san(m) for m in keep)
    lines.append(f'{epd} bm {bm}; hmvc {clock}; id "syzygy-4.{len(lines)+1:03d} {material} {result}";')
print("\n".join(lines))
