#!/usr/bin/env python3
"""Time use of each engine from match PGNs (fastchess or cutechess-cli).

For every game and side: the clock time spent (sum of the move times in the
comments, "{score/depth 0.123s ...}"), the time the clock gave (base time,
plus increments, plus further periods for "moves/time" controls, from the
TimeControl tag), and the time left at the end. Prints per engine the mean
share of the clock used per game, the mean and smallest time left, and how
many games ended on time.

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


def main(paths):
    stats = defaultdict(lambda: {"games": 0, "share": 0.0, "left": [], "forfeits": 0})
    for tags, movetext in games(paths):
        if "TimeControl" not in tags or tags["TimeControl"] in ("-", "?"):
            continue
        per_period, base, increment = time_control(tags["TimeControl"])
        # Move comments alternate between the side that moved first and the other.
        comments = re.findall(r"\{[^}]*\}", movetext)
        first = "White"
        if "FEN" in tags and tags["FEN"].split()[1] == "b":
            first = "Black"
        second = "Black" if first == "White" else "White"
        spent = {first: 0.0, second: 0.0}
        moves = {first: 0, second: 0}
        for index, comment in enumerate(comments):
            side = first if index % 2 == 0 else second
            if "book" in comment:
                continue
            found = MOVE_TIME.search(comment)
            if found:
                spent[side] += float(found.group(1))
                moves[side] += 1
        for side in (first, second):
            given = base + increment * moves[side]
            if per_period:
                given += base * (moves[side] // per_period)
            name = tags.get(side, side)
            s = stats[(name, tags["TimeControl"])]
            s["games"] += 1
            s["share"] += spent[side] / given if given else 0.0
            s["left"].append(given - spent[side])
        termination = tags.get("Termination", "")
        if "time" in termination:
            loser = "White" if tags.get("Result") == "0-1" else "Black"
            stats[(tags.get(loser, loser), tags["TimeControl"])]["forfeits"] += 1
    print(f"{'engine':<16} {'clock':<10} {'games':>6} {'clock used':>11} {'left, mean':>11} {'left, least':>12} {'on time':>8}")
    for (name, tc), s in sorted(stats.items()):
        n = s["games"]
        print(
            f"{name:<16} {tc:<10} {n:>6} {100 * s['share'] / n:>10.1f}% "
            f"{sum(s['left']) / n:>10.2f}s {min(s['left']):>11.2f}s {s['forfeits']:>8}"
        )


if __name__ == "__main__":
    main(sys.argv[1:])
