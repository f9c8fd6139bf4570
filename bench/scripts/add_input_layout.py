#!/usr/bin/env python3
"""Turns a network file of format 2 into format 3 (with the input layout field).

Format 3 adds one header field, the input layout; a format 2 network was
always trained on the plain layout, so the new file says so and evaluates
every position exactly as the old one did. This is how the generation 4
network, `sessa-ca9455deb888.nnue`, became `sessa-c59edbfc7915.nnue`.

    python3 bench/scripts/add_input_layout.py OLD.nnue NEW.nnue
"""

import argparse
import struct

from add_output_buckets import MAGIC, fnv1a

PLAIN_LAYOUT = 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old", help="network file of format 2")
    parser.add_argument("new", help="network file of format 3 to write")
    args = parser.parse_args()

    data = open(args.old, "rb").read()
    if data[:8] != MAGIC:
        raise SystemExit(f"{args.old}: not a Sessa network file")
    (version,) = struct.unpack_from("<I", data, 8)
    if version != 2:
        raise SystemExit(f"{args.old}: format {version}, not 2")
    body_end = len(data) - 8
    if struct.unpack_from("<Q", data, body_end)[0] != fnv1a(data[:body_end]):
        raise SystemExit(f"{args.old}: checksum mismatch")
    header_end = 36
    out = MAGIC + struct.pack("<I", 3) + data[12:header_end]
    out += struct.pack("<I", PLAIN_LAYOUT) + data[header_end:body_end]
    out += struct.pack("<Q", fnv1a(out))
    with open(args.new, "wb") as f:
        f.write(out)
    name = f"sessa-{fnv1a(out) >> 16:012x}.nnue"
    print(f"{args.new}: {len(out)} bytes, plain layout, ships as {name}")


if __name__ == "__main__":
    main()
