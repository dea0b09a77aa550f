#!/usr/bin/python3
"""nanogpt_char_reference.py: nanoGPT's train.py loop for the character-level recipes, in PyTorch,
drawing its random numbers in exactly nanoGPT's order, to set beside
`scratchgpt train --rng-stream nanogpt` (docs/bench-log.md, "Training quality").

nanoGPT's order, one global generator after torch.manual_seed(seed): the model's construction and
init (nn.Linear / nn.Embedding defaults, then _init_weights, then the c_proj re-init), the first
batch, then per step: estimate_loss's batches when the step is a multiple of eval_interval
(eval_iters train batches, then eval_iters val batches), the forward's dropout masks, the next
batch (prefetched before the backward). The model is tools/make_gpt_fixtures.py's GPT (nanoGPT's
modules in nanoGPT's order). Like scratchgpt, it stops after the evaluation at max_iters (nanoGPT
takes one more step there, which no evaluation sees).

Usage: /usr/bin/python3 tools/nanogpt_char_reference.py DATA_DIR [--preset small|char|tiny]
       [--seed 1337] [--threads 1] [--max-iters N] [--activation gelu-exact|gelu] [--autocast bf16]
--autocast bf16 runs every forward (training and evaluation) under
torch.autocast("cpu", dtype=torch.bfloat16), as ../shared/bench/pytorch_anchor's harness does:
PyTorch's bf16 on a CPU, often its fastest where the CPU has bf16 instructions (nanoGPT's own
train.py autocasts on GPUs only).
DATA_DIR holds the train.bin / val.bin that `scratchgpt prepare` writes (the same tokens as
nanoGPT's data/shakespeare_char/prepare.py).

       /usr/bin/python3 tools/nanogpt_char_reference.py --fixture tests/fixtures/train/nanogpt_tiny.json
writes the fixture of tests/e2e/train_nanogpt_stream_test.cpp: the "tiny" preset (dropout on,
so the masks' place in the stream counts too) on the first 20,000 characters of
data/tinyshakespeare.txt, tokenized as `scratchgpt prepare` and nanoGPT's prepare.py do, with every
step's loss and every evaluation.
"""
import json
import argparse
import math
import os
import struct
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_gpt_fixtures import GPT  # noqa: E402

PRESETS = {  # nanoGPT's config/train_shakespeare_char.py and its README's CPU recipe
    "small": dict(n_layer=4, n_head=4, n_embd=128, block_size=64, batch_size=12, dropout=0.0,
                  max_iters=2000, lr_decay_iters=2000, eval_iters=20),
    "char": dict(n_layer=6, n_head=6, n_embd=384, block_size=256, batch_size=64, dropout=0.2,
                 max_iters=5000, lr_decay_iters=5000, eval_iters=200),
    # For the test fixture: seconds, not minutes; evaluations at 0, 10, 20, 30.
    "tiny": dict(n_layer=1, n_head=2, n_embd=16, block_size=16, batch_size=4, dropout=0.1,
                 max_iters=30, lr_decay_iters=30, eval_iters=3, warmup_iters=5, eval_interval=10),
}
FIXTURE_CHARS = 20000


def load(path):
    b = open(path, "rb").read()
    n = struct.unpack_from("<Q", b, 8)[0]
    return torch.frombuffer(bytearray(b[32:32 + 2 * n]), dtype=torch.int16).to(torch.int64) & 0xFFFF


def prepare_text(text):
    """nanoGPT's data/shakespeare_char/prepare.py (and `scratchgpt prepare`): sorted characters,
    the first int(n * 0.9) tokens for training."""
    chars = sorted(set(text))
    ids = torch.tensor([chars.index(c) for c in text], dtype=torch.int64)
    n = int(len(ids) * 0.9)
    return {"train": ids[:n], "val": ids[n:]}


def train(data, p, seed, activation, max_iters, log=print, autocast=False):
    """nanoGPT's train.py loop; returns (per-step losses, [(iter, train, val)] evaluations).
    autocast: the forwards under torch.autocast("cpu", dtype=torch.bfloat16)."""
    def ctx():
        return torch.autocast("cpu", dtype=torch.bfloat16, enabled=autocast)

    V = int(max(data["train"].max(), data["val"].max())) + 1
    B, T = p["batch_size"], p["block_size"]
    lr, min_lr = 1e-3, 1e-4
    warmup, decay_iters = p.get("warmup_iters", 100), p["lr_decay_iters"]
    eval_interval, eval_iters = p.get("eval_interval", 250), p["eval_iters"]

    torch.manual_seed(seed)
    cfg = dict(V=V, block_size=T, n_layer=p["n_layer"], n_head=p["n_head"], n_embd=p["n_embd"],
               activation=activation, bias=False, tied=True, dropout=p["dropout"])
    model = GPT(cfg)
    params = [q for q in model.parameters() if q.requires_grad]
    opt = torch.optim.AdamW([{"params": [q for q in params if q.dim() >= 2], "weight_decay": 0.1},
                             {"params": [q for q in params if q.dim() < 2], "weight_decay": 0.0}],
                            lr=lr, betas=(0.9, 0.99))

    def get_batch(split):
        d = data[split]
        ix = torch.randint(len(d) - T, (B,))
        return (torch.stack([d[i:i + T] for i in ix]), torch.stack([d[i + 1:i + 1 + T] for i in ix]))

    @torch.no_grad()
    def estimate_loss():
        model.eval()
        out = {}
        for split in ("train", "val"):
            total = 0.0
            for _ in range(eval_iters):
                X, Y = get_batch(split)
                with ctx():
                    total += model(X, Y)[1].item()
            out[split] = total / eval_iters
        model.train()
        return out

    def get_lr(it):
        if it < warmup:
            return lr * (it + 1) / (warmup + 1)
        if it > decay_iters:
            return min_lr
        ratio = (it - warmup) / (decay_iters - warmup)
        return min_lr + 0.5 * (1.0 + math.cos(math.pi * ratio)) * (lr - min_lr)

    X, Y = get_batch("train")  # the very first batch
    t0, it, losses, evals = time.time(), 0, [], []
    while True:
        for g in opt.param_groups:
            g["lr"] = get_lr(it)
        if it % eval_interval == 0 or it == max_iters:
            e = estimate_loss()
            evals.append((it, e["train"], e["val"]))
            log(f"step {it}: train loss {e['train']:.4f}, val loss {e['val']:.4f} "
                f"({time.time() - t0:.0f} s)")
        if it >= max_iters:
            break
        with ctx():
            _, loss = model(X, Y)
        X, Y = get_batch("train")  # prefetched before the backward, as nanoGPT
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)
        losses.append(loss.item())
        it += 1
    return losses, evals


def write_fixture(path):
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "..", "data", "tinyshakespeare.txt"), encoding="utf-8") as f:
        text = f.read()[:FIXTURE_CHARS]
    torch.set_num_threads(1)
    p = PRESETS["tiny"]
    losses, evals = train(prepare_text(text), p, 1337, "gelu", p["max_iters"], log=lambda s: None)
    fixture = {"generator": "tools/nanogpt_char_reference.py --fixture", "torch": torch.__version__,
               "chars": FIXTURE_CHARS, "seed": 1337, "activation": "gelu",
               "config": p, "losses": losses,
               "evals": [{"iter": i, "train_loss": tr, "val_loss": va} for i, tr, va in evals]}
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(fixture, f, indent=1)
    print(f"wrote {path}: {len(losses)} steps, final loss {losses[-1]:.4f}")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--fixture":
        return write_fixture(sys.argv[2])
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data_dir")
    ap.add_argument("--preset", choices=sorted(PRESETS), default="small")
    ap.add_argument("--seed", type=int, default=1337)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--max-iters", type=int)
    ap.add_argument("--activation", default="gelu-exact", choices=["gelu-exact", "gelu"])
    ap.add_argument("--autocast", default="none", choices=["none", "bf16"],
                    help="bf16: every forward under torch.autocast('cpu', dtype=torch.bfloat16)")
    a = ap.parse_args()
    p = PRESETS[a.preset]
    torch.set_num_threads(a.threads)
    with open("/proc/self/maps") as f:  # which BLAS torch's matrix products run on
        blas = sorted({l.split()[-1] for l in f if "blas" in l and l.split()[-1].startswith("/")})
    print(f"blas: {', '.join(blas) or 'none found'}", flush=True)
    data = {"train": load(os.path.join(a.data_dir, "train.bin")),
            "val": load(os.path.join(a.data_dir, "val.bin"))}
    t0 = time.time()
    _, evals = train(data, p, a.seed, a.activation,
                     a.max_iters if a.max_iters is not None else p["max_iters"],
                     log=lambda s: print(s, flush=True), autocast=a.autocast == "bf16")
    print(f"seed {a.seed}: best val {min(v for _, _, v in evals):.4f}, {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
