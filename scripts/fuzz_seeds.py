#!/usr/bin/env python3
"""Copies every file under the given directories (up to 1 MB, no .md) into OUT as a fuzz seed, cut to
its first MAX_BYTES bytes (at the last line end in them when there is one), named by a hash of its
path. Used by scripts/fuzz_long.sh and bench/fuzz_speed.sh.

    scripts/fuzz_seeds.py MAX_BYTES OUT DIR...
"""
import hashlib
import os
import sys


def main() -> int:
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    max_bytes, out, dirs = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
    for d in dirs:
        for base, _, names in os.walk(d):
            for n in names:
                f = os.path.join(base, n)
                if n.endswith(".md") or not os.path.isfile(f) or os.path.getsize(f) > (1 << 20):
                    continue
                with open(f, "rb") as fh:
                    b = fh.read(max_bytes)
                cut = b.rfind(b"\n")
                if os.path.getsize(f) > max_bytes and cut > 0:
                    b = b[: cut + 1]
                name = "seed-" + hashlib.md5(f.encode()).hexdigest()[:16]
                with open(os.path.join(out, name), "wb") as fh:
                    fh.write(b)
    return 0


if __name__ == "__main__":
    sys.exit(main())
