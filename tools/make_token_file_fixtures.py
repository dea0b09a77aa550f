#!/usr/bin/env python3
"""make_token_file_fixtures.py: token files written the way nanoGPT and llm.c write them, with
numpy, for tests/data/token_file_test.cpp (TokenFile.ReadsAndWritesTheirFiles).

  nanogpt.bin  nanoGPT's data/*/prepare.py: np.array(ids, dtype=np.uint16).tofile(path)
  llmc.bin     llm.c's dev/data/data_common.py write_datafile: a header of 256 int32
               (20240520, version 1, token count, zeros), then the ids as uint16
  ids.txt      the ids, one line, separated by spaces

Run with Debian's python3 (numpy): /usr/bin/python3 tools/make_token_file_fixtures.py
"""
import os

import numpy as np

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "data")

# GPT-2's ids of "Hello world<|endoftext|>" and a spread over the whole uint16 range that GPT-2's
# vocabulary uses (so both bytes of each id matter).
ids = [15496, 995, 50256, 0, 1, 255, 256, 257, 11, 198, 50255, 40000, 12345, 31373]

os.makedirs(OUT, exist_ok=True)
np.array(ids, dtype=np.uint16).tofile(os.path.join(OUT, "nanogpt.bin"))

header = np.zeros(256, dtype=np.int32)
header[0] = 20240520
header[1] = 1
header[2] = len(ids)
with open(os.path.join(OUT, "llmc.bin"), "wb") as f:
    f.write(header.tobytes())
    f.write(np.array(ids, dtype=np.uint16).tobytes())

with open(os.path.join(OUT, "ids.txt"), "w") as f:
    f.write(" ".join(str(i) for i in ids) + "\n")
