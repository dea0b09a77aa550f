#!/usr/bin/python3
"""Fixtures of nanoGPT's own files for tests/fixtures/nanogpt_ckpt/ (issue 39): ckpt.pt files saved
exactly as nanoGPT's train.py saves them, and data/shakespeare_char/prepare.py's meta.pkl and bins.

Run with Debian's torch (/usr/bin/python3, torch 1.13) against a nanoGPT checkout outside the repo:
    /usr/bin/python3 tools/make_nanogpt_ckpt_fixtures.py /tmp/nanogpt tests/fixtures/nanogpt_ckpt
It imports the checkout's model.py (GPT, GPTConfig), runs configure_optimizers and AdamW steps, and
records nanoGPT's own logits and loss for a fixed input in expected.json, which the C++ tests
compare with ours. Leaves out: a compile=True run (torch 1.13 has no torch.compile: the
_orig_mod. prefix such a run saves is added to the keys by hand).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

import torch

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def prepare_char(nanogpt, out):
    """nanoGPT's data/shakespeare_char/prepare.py on the first 20,000 characters of our copy of Tiny
    Shakespeare (an input.txt beside it, so it downloads nothing)."""
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copy(os.path.join(nanogpt, "data/shakespeare_char/prepare.py"), tmp)
        with open(os.path.join(REPO, "data/tinyshakespeare.txt")) as f:
            text = f.read()[:20000]
        with open(os.path.join(tmp, "input.txt"), "w") as f:
            f.write(text)
        subprocess.run([sys.executable, "prepare.py"], cwd=tmp, check=True)
        for name in ("meta.pkl", "train.bin", "val.bin"):
            shutil.copy(os.path.join(tmp, name), os.path.join(out, name))
    import pickle
    with open(os.path.join(out, "meta.pkl"), "rb") as f:
        return pickle.load(f)


def train_config(**over):
    """train.py's config dict: the globals it saves (shakespeare_char's values, a tiny model)."""
    c = dict(out_dir="out-shakespeare-char", eval_interval=250, log_interval=10, eval_iters=200,
             eval_only=False, always_save_checkpoint=False, init_from="scratch", wandb_log=False,
             wandb_project="shakespeare-char", wandb_run_name="mini-gpt", dataset="shakespeare_char",
             gradient_accumulation_steps=1, batch_size=4, block_size=16, n_layer=2, n_head=2,
             n_embd=16, dropout=0.0, bias=True, learning_rate=1e-3, max_iters=2,
             weight_decay=1e-1, beta1=0.9, beta2=0.99, grad_clip=1.0, decay_lr=True,
             warmup_iters=100, lr_decay_iters=5000, min_lr=1e-4, backend="nccl", device="cpu",
             dtype="float32", compile=False)
    c.update(over)
    return c


def build(GPT, GPTConfig, cfg, vocab_size, steps, data):
    torch.manual_seed(1337)
    model_args = dict(n_layer=cfg["n_layer"], n_head=cfg["n_head"], n_embd=cfg["n_embd"],
                      block_size=cfg["block_size"], bias=cfg["bias"], vocab_size=vocab_size,
                      dropout=cfg["dropout"])
    model = GPT(GPTConfig(**model_args))
    optimizer = model.configure_optimizers(cfg["weight_decay"], cfg["learning_rate"],
                                           (cfg["beta1"], cfg["beta2"]), "cpu")
    T, B = cfg["block_size"], cfg["batch_size"]
    g = torch.Generator().manual_seed(7)
    for _ in range(steps):
        ix = torch.randint(len(data) - T, (B,), generator=g)
        x = torch.stack([data[i:i + T] for i in ix])
        y = torch.stack([data[i + 1:i + 1 + T] for i in ix])
        _, loss = model(x, y)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), cfg["grad_clip"])
        optimizer.step()
    return model, model_args, optimizer


def expected(model, data, T):
    """nanoGPT's logits (1, T, V) and loss for the first T tokens of data as input."""
    model.eval()
    x, y = data[:T].unsqueeze(0), data[1:T + 1].unsqueeze(0)
    with torch.no_grad():
        logits, loss = model(x.long(), y.long())
    return {"input": x[0].tolist(), "targets": y[0].tolist(), "loss": float(loss),
            "logits": [float(v) for v in logits.float().flatten()]}


def save(path, model, model_args, optimizer, cfg, iter_num, prefix=""):
    """train.py's checkpoint, saved as train.py saves it."""
    sd = model.state_dict()
    if prefix:
        sd = type(sd)((prefix + k, v) for k, v in sd.items())
    checkpoint = {
        'model': sd,
        'optimizer': optimizer.state_dict(),
        'model_args': model_args,
        'iter_num': iter_num,
        'best_val_loss': torch.tensor(4.1875),
        'config': cfg,
    }
    torch.save(checkpoint, path)


def main():
    nanogpt, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    sys.path.insert(0, nanogpt)
    from model import GPT, GPTConfig  # nanoGPT's own
    meta = prepare_char(nanogpt, out)
    import numpy as np
    data = torch.from_numpy(np.fromfile(os.path.join(out, "train.bin"), dtype=np.uint16)
                            .astype(np.int64))
    V = meta["vocab_size"]
    exp = {"meta_vocab_size": V}

    cfg = train_config()
    model, args, opt = build(GPT, GPTConfig, cfg, V, 2, data)
    save(os.path.join(out, "char.pt"), model, args, opt, cfg, 2)
    exp["char"] = expected(model, data, 16)

    cfg = train_config(bias=False, compile=True)
    model, args, opt = build(GPT, GPTConfig, cfg, V, 1, data)
    save(os.path.join(out, "compiled.pt"), model, args, opt, cfg, 1, prefix="_orig_mod.")
    exp["compiled"] = expected(model, data, 16)

    # nanoGPT's GPT-2-token default: vocab 50304 (50257 padded); n_embd 4 keeps the file small.
    cfg = train_config(n_layer=1, n_head=2, n_embd=4, block_size=8, dataset="openwebtext")
    model, args, opt = build(GPT, GPTConfig, cfg, 50304, 0, data)
    save(os.path.join(out, "padded.pt"), model, args, opt, cfg, 0)
    e = expected(model, data, 8)
    last = e.pop("logits")[-50304:]  # the last position's: its first 64 and its 47 padded ids
    e["last_logits_head"], e["last_logits_padded"] = last[:64], last[50257:]
    exp["padded"] = e

    cfg = train_config(dtype="bfloat16")
    model, args, opt = build(GPT, GPTConfig, cfg, V, 1, data)
    model = model.to(torch.bfloat16)
    save(os.path.join(out, "bf16.pt"), model, args, opt, cfg, 1)
    exp["bf16"] = expected(model.float(), data, 16)

    # The same archive with its entries deflated (torch.save never does: a reader must say so).
    import zipfile
    with zipfile.ZipFile(os.path.join(out, "compiled.pt")) as src, \
            zipfile.ZipFile(os.path.join(out, "deflated.pt"), "w", zipfile.ZIP_DEFLATED) as dst:
        for name in src.namelist()[:3]:
            dst.writestr(name, src.read(name))

    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump(exp, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
