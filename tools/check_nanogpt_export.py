#!/usr/bin/python3
"""Checks scratchgpt's nanoGPT export and meta.pkl with nanoGPT's own code and Debian's torch 1.13
(issue 39, items 1 and 3); run by hand, it prints what it checked and exits non-zero on a failure:

    scratchgpt export --format nanogpt --checkpoint tests/fixtures/nanogpt_ckpt/char.pt --out /tmp/n.safetensors
    /usr/bin/python3 tools/check_nanogpt_export.py /tmp/nanogpt /tmp/n.safetensors [meta.pkl ours] [meta.pkl theirs]

The export must load with load_state_dict(strict=True) into nanoGPT's GPT built from its
model_args (torch 1.13 registers attn.bias mask buffers), and give the logits nanoGPT's own
checkpoint gives (tests/fixtures/nanogpt_ckpt/expected.json). Two meta.pkl files must load with
Python's pickle.load as equal dicts.
"""
import json
import os
import pickle
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import safetensors_io  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    nanogpt, path = sys.argv[1], sys.argv[2]
    sys.path.insert(0, nanogpt)
    from model import GPT, GPTConfig  # nanoGPT's own
    tensors, meta = safetensors_io.load(path)
    args = json.loads(meta["model_args"])
    model = GPT(GPTConfig(**args))
    model.load_state_dict({k: torch.from_numpy(v.copy()) for k, v in tensors.items()}, strict=True)
    print(f"load_state_dict(strict=True): ok ({len(tensors)} tensors)")
    exp = json.load(open(os.path.join(REPO, "tests/fixtures/nanogpt_ckpt/expected.json")))["char"]
    model.eval()
    x = torch.tensor([exp["input"]])
    y = torch.tensor([exp["targets"]])
    with torch.no_grad():
        logits, loss = model(x, y)
    worst = (logits.flatten() - torch.tensor(exp["logits"])).abs().max().item()
    print(f"logits against nanoGPT's own checkpoint: max difference {worst:.3g}, loss {loss.item():.6f} "
          f"(theirs {exp['loss']:.6f})")
    assert worst < 1e-5
    if len(sys.argv) > 4:
        a = pickle.load(open(sys.argv[3], "rb"))
        b = pickle.load(open(sys.argv[4], "rb"))
        assert a == b and type(a["itos"]) is dict and type(a["stoi"]) is dict
        print(f"pickle.load: {sys.argv[3]} == {sys.argv[4]} ({a['vocab_size']} characters)")


if __name__ == "__main__":
    main()
