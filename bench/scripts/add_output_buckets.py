#!/usr/bin/env python3
"""Turns a network file of format 1 (one output) into format 2 (output buckets).

Every bucket gets a copy of the single output's weights and bias, so the new
file evaluates every position exactly as the old one did. Training can then
start from it (`train --from`) and let the buckets grow apart. This is how
generation 4 started from generation 3's weights.

    python3 bench/scripts/add_output_buckets.py OLD.nnue NEW.nnue [--buckets 8]
"""

import argparse
import struct

MAGIC = b"SESSANET"


def fnv1a(data: bytes) -> int:
    """The engine's file checksum: FNV-1a, 64 bits."""
    value = 0xCBF29CE484222325
    for byte in data:
        value = ((value ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old", help="network file of format 1")
    parser.add_argument("new", help="network file of format 2 to write")
    parser.add_argument("--buckets", type=int, default=8, help="output buckets (the engine's OUTPUT_BUCKETS)")
    args = parser.parse_args()

    data = open(args.old, "rb").read()
    if data[:8] != MAGIC:
        raise SystemExit(f"{args.old}: not a Sessa network file")
    version, inputs, hidden, qa, qb, scale = struct.unpack_from("<6I", data, 8)
    if version != 1:
        raise SystemExit(f"{args.old}: format {version}, not 1")
    body_end = len(data) - 8
    if struct.unpack_from("<Q", data, body_end)[0] != fnv1a(data[:body_end]):
        raise SystemExit(f"{args.old}: checksum mismatch")
    first_layer_bytes = 2 * (inputs * hidden + hidden)
    at = 32
    first_layer = data[at : at + first_layer_bytes]
    at += first_layer_bytes
    output_weights = data[at : at + 4 * hidden]
    at += 4 * hidden
    output_bias = data[at : at + 4]
    if at + 4 != body_end:
        raise SystemExit(f"{args.old}: {len(data)} bytes do not fit its header")

    out = MAGIC + struct.pack("<7I", 2, inputs, hidden, args.buckets, qa, qb, scale)
    out += first_layer + output_weights * args.buckets + output_bias * args.buckets
    out += struct.pack("<Q", fnv1a(out))
    with open(args.new, "wb") as f:
        f.write(out)
    print(f"{args.new}: {len(out)} bytes, {args.buckets} buckets")


if __name__ == "__main__":
    main()
