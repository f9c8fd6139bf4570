"""How long a large hash takes to be ready, and how fast the searches after it run.

Usage: python3 bench/scripts/hash_ready.py SESSA MB [PAUSE_SECONDS]

Sets `Hash` to MB and times `readyok`, then `ucinewgame` and `readyok`,
waits PAUSE_SECONDS (default 0), and runs two searches of 4,000,000 nodes
from two positions, printing the time and the last reported nps of each.
"""

import subprocess
import sys
import time

NODES = 4_000_000


def main():
    exe, megabytes = sys.argv[1], sys.argv[2]
    pause = float(sys.argv[3]) if len(sys.argv) > 3 else 0.0
    engine = subprocess.Popen([exe], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True, bufsize=1)

    def send(line):
        engine.stdin.write(line + "\n")
        engine.stdin.flush()

    def wait_for(prefix):
        lines = []
        while True:
            line = engine.stdout.readline()
            if not line:
                sys.exit("the engine closed its output")
            lines.append(line)
            if line.startswith(prefix):
                return lines

    def timed(*commands, until):
        start = time.time()
        for command in commands:
            send(command)
        lines = wait_for(until)
        return time.time() - start, lines

    def search(moves):
        send("position startpos moves " + moves)
        seconds, lines = timed(f"go nodes {NODES}", until="bestmove")
        words = [line for line in lines if " nps " in line][-1].split()
        return seconds, int(words[words.index("nps") + 1])

    timed("uci", until="uciok")
    timed("isready", until="readyok")
    hash_seconds, _ = timed(f"setoption name Hash value {megabytes}", "isready", until="readyok")
    new_game_seconds, _ = timed("ucinewgame", "isready", until="readyok")
    time.sleep(pause)
    first = search("e2e4 c7c5 g1f3")
    second = search("d2d4 g8f6 c2c4 e7e6")
    send("quit")
    engine.wait()
    print(f"hash {megabytes} MB: readyok after setoption {hash_seconds:.2f} s, "
          f"after ucinewgame {new_game_seconds:.2f} s, pause {pause:.0f} s, "
          f"first search {first[0]:.2f} s ({first[1]} nps), "
          f"second {second[0]:.2f} s ({second[1]} nps)")


if __name__ == "__main__":
    main()
