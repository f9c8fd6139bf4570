#!/usr/bin/env python3
"""Time use of each engine from match PGNs (fastchess or cutechess-cli).

For every game and side: the clock time spent (sum of the move times in the
comments, "{score/depth 0.123s ...}"), the time the clock gave (base time,
plus increments, plus further periods for "moves/time" controls, from the
TimeControl tag), the time left at the end, and the lowest the clock got
during the game (right after a move, before its increment). Prints per
engine the mean share of the clock used per game, the mean and smallest time
left at the end, the lowest clock of all games, and how many games were lost
on time. A move without a time in its comment counts as played at once.

    python3 bench/scripts/time_use.py games.pgn [more.pgn ...]
"""
import re
import sys
from collections import defaultdict

TAG = re.compile(r'^\[(\w+) "(.*)"\]')
MOVE_TIME = re.compile(r"\{[^}]*?(\d+(?:\.\d+)?)s\b")


def time_control(text):
    """(moves per period or None, base seconds, increment seconds)."""
    moves = None
    if "/" in text:
        moves, text = text.split("/", 1)
        moves = int(moves)
    base, _, increment = text.partition("+")
    return moves, float(base), float(increment or 0)


def games(paths):
    for path in paths:
        tags, moves = {}, []
        for line in open(path, encoding="utf-8", errors="replace"):
            match = TAG.match(line)
            if match:
                if moves:
                    yield tags, " ".join(moves)
                    tags, moves = {}, []
                tags[match.group(1)] = match.group(2)
            elif line.strip():
                moves.append(line.strip())
        if moves:
            yield tags, " ".join(moves)


TOKEN = re.compile(r"\{[^}]*\}|\d+\.(?:\.\.)?|\S+")
RESULTS = {"1-0", "0-1", "1/2-1/2", "*"}
BOOK = "book"


def move_times(movetext):
    """The time of each move in order: seconds, None where a move has no
    time, or BOOK for a move from the opening book (off the clock).

    A move's time is in the comment right after it; a move without one (a
    cutechess-cli PGN leaves the comment out of a move played at once) gets
    None, so that the comments of later moves stay with the right side.
    """
    times = []
    for token in TOKEN.findall(movetext):
        if token.startswith("{"):
            if times and times[-1] is None:
                found = MOVE_TIME.search(token)
                if "book" in token:
                    times[-1] = BOOK
                elif found:
                    times[-1] = float(found.group(1))
        elif token[0].isdigit() and token.endswith("."):
            continue
        elif token in RESULTS:
            break
        else:
            times.append(None)
    return times


def main(paths):
    stats = defaultdict(lambda: {"games": 0, "share": 0.0, "left": [], "lowest": [], "forfeits": 0})
    for tags, movetext in games(paths):
        if "TimeControl" not in tags or tags["TimeControl"] in ("-", "?"):
            continue
        per_period, base, increment = time_control(tags["TimeControl"])
        first = "White"
        if "FEN" in tags and tags["FEN"].split()[1] == "b":
            first = "Black"
        second = "Black" if first == "White" else "White"
        spent = {first: 0.0, second: 0.0}
        moves = {first: 0, second: 0}
        clock = {first: base, second: base}
        lowest = {first: base, second: base}
        for index, time in enumerate(move_times(movetext)):
            side = first if index % 2 == 0 else second
            if time == BOOK:
                continue
            time = time or 0.0
            spent[side] += time
            moves[side] += 1
            clock[side] -= time
            lowest[side] = min(lowest[side], clock[side])
            clock[side] += increment
            if per_period and moves[side] % per_period == 0:
                clock[side] += base
        for side in (first, second):
            given = clock[side] + spent[side]
            name = tags.get(side, side)
            s = stats[(name, tags["TimeControl"])]
            s["games"] += 1
            s["share"] += spent[side] / given if given else 0.0
            s["left"].append(clock[side])
            s["lowest"].append(lowest[side])
        termination = tags.get("Termination", "")
        if "time" in termination:
            loser = "White" if tags.get("Result") == "0-1" else "Black"
            stats[(tags.get(loser, loser), tags["TimeControl"])]["forfeits"] += 1
    print(
        f"{'engine':<16} {'clock':<10} {'games':>6} {'clock used':>11} {'left, mean':>11} "
        f"{'left, least':>12} {'lowest':>8} {'on time':>8}"
    )
    for (name, tc), s in sorted(stats.items()):
        n = s["games"]
        print(
            f"{name:<16} {tc:<10} {n:>6} {100 * s['share'] / n:>10.1f}% "
            f"{sum(s['left']) / n:>10.2f}s {min(s['left']):>11.2f}s {min(s['lowest']):>7.2f}s "
            f"{s['forfeits']:>8}"
        )


if __name__ == "__main__":
    main(sys.argv[1:])
