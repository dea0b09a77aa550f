#!/usr/bin/python3
"""make_utf8_fixtures.py: Python's own UTF-8 decoder with errors="replace" (what tiktoken's decode
and so nanoGPT's sample.py print), for tests/core/utf8_test.cpp.

Writes tests/fixtures/core/utf8_replace.txt: one case a line, "<bytes in hex> <replaced in hex>",
where the second is bytes.decode("utf-8", errors="replace").encode("utf-8"). The cases are random
strings built from pieces chosen to hit every rule: ASCII, valid 2/3/4-byte characters, each
lead byte's edge (E0 A0, ED 9F, F0 90, F4 8F and the bytes just outside), truncated characters,
stray continuation bytes, overlong forms, surrogates, C0/C1/F5..FF. Deterministic (seeded).
Regenerate from the repository root (standard library only):

    python3 tools/make_utf8_fixtures.py [--out tests/fixtures/core]
"""
import argparse
import os
import random

PIECES = [
    b"a", b"\n", b"\xc3\xa9", b"\xe6\x97\xa5", b"\xf0\x9f\x8e\x89",  # valid
    b"\xe0\xa0\x80", b"\xed\x9f\xbf", b"\xf0\x90\x80\x80", b"\xf4\x8f\xbf\xbf",  # edges, valid
    b"\xe0\x80\x80", b"\xed\xa0\x80", b"\xf0\x80\x80\x80", b"\xf4\x90\x80\x80",  # just outside
    b"\xc0\xaf", b"\xc1\xbf", b"\xf5\x80", b"\xff", b"\xfe", b"\xf8\x88\x80\x80\x80",
    b"\x80", b"\xbf", b"\xc3", b"\xe2\x82", b"\xf0\x9f\x98", b"\xe6", b"\xf4",  # stray / cut
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="tests/fixtures/core")
    args = ap.parse_args()
    rng = random.Random(2026)
    lines = []
    for piece in PIECES:  # each piece alone first
        lines.append(piece)
    for _ in range(1500):
        n = rng.randint(1, 8)
        lines.append(b"".join(rng.choice(PIECES) for _ in range(n)))
    for _ in range(300):  # uniformly random bytes too
        lines.append(bytes(rng.randrange(256) for _ in range(rng.randint(1, 12))))
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "utf8_replace.txt")
    with open(path, "w") as f:
        for b in lines:
            f.write(b.hex() + " " + b.decode("utf-8", errors="replace").encode("utf-8").hex() + "\n")
    print(f"wrote {len(lines)} cases to {path}")


if __name__ == "__main__":
    main()
