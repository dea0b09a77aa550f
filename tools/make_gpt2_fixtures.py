#!/usr/bin/python3
"""make_gpt2_fixtures.py: a small random GPT-2 in each file layout that users bring, and its logits
computed by a GPT-2 forward written here, for tests/e2e/import_export_test.cpp.

The model: GPT-2's architecture (pre-norm blocks, fused c_attn, tanh GELU, biases, LayerNorm eps
1e-5, lm_head tied to wte) at a tiny size: V=500 (the BPE in tests/fixtures/gpt2/tok500, trained
with 'scratchgpt tokenizer train --vocab-size 500'), n_positions=16, L=2, NH=2, C=16. Random
weights (not GPT-2's init: larger values, LayerNorm weights and biases away from 1 and 0, so a
transposed or swapped tensor shows in the logits). Files in tests/fixtures/gpt2/:

  hub/config.json, hub/model.safetensors
      the Hugging Face hub's layout (openai-community/gpt2): keys wte.weight, wpe.weight,
      h.N.ln_1.weight, h.N.attn.c_attn.weight, ... ln_f.bias, no lm_head; Conv1D weights stored
      (in, out); the h.N.attn.bias causal-mask buffers (1, 1, n_ctx, n_ctx) present
  saved/config.json, saved/model.safetensors
      save_pretrained's layout: every key under "transformer.", plus lm_head.weight (tied: a copy
      of wte), no mask buffers
  saved_nohead/...  the same without lm_head.weight (transformers drops the tied copy)
  llmc.bin
      llm.c's gpt2_124M.bin format: 256 int32 of header (20240326, version 3 = fp32, max_seq_len,
      vocab_size, num_layers, num_heads, channels, padded_vocab_size), then the parameters in
      llm.c's order, (out, in) weights, wte padded with zero rows to a multiple of 128
  nanogpt.safetensors
      nanoGPT's GPT(bias=True) state_dict with these weights, taken from nanoGPT's own model.py
      (a checkout outside the repo, --nanogpt DIR or the git dir in NANOGPT_SRC), as PyTorch >= 2
      has it (no attn.bias buffers: the flash path); loaded back with strict=True; metadata
      model_args = nanoGPT's GPTConfig as JSON
  logits.safetensors
      idx, targets (B=2, T=16) int32; logits (B, T, V) and loss float64: the forward below in
      double from the float32 weights

Regenerate from the repository root with Debian's PyTorch 1.13:
    /usr/bin/python3 tools/make_gpt2_fixtures.py --nanogpt /path/to/nanoGPT
"""
import argparse
import importlib.util
import json
import math
import os
import struct
import subprocess
import sys
import tempfile

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(__file__))
import safetensors_io  # noqa: E402

V, T_MAX, L, NH, C = 500, 16, 2, 2, 16
B, T = 2, 16
OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "gpt2")


def random_weights(seed=2024):
    """GPT-2's parameters in the hub's names and Conv1D (in, out) layout, float32."""
    g = torch.Generator().manual_seed(seed)

    def rnd(*shape, scale=0.3, mean=0.0):
        return (torch.randn(*shape, generator=g) * scale + mean).float()

    w = {"wte.weight": rnd(V, C, scale=0.5), "wpe.weight": rnd(T_MAX, C, scale=0.2)}
    for l in range(L):
        p = f"h.{l}."
        w[p + "ln_1.weight"] = rnd(C, scale=0.2, mean=1.0)
        w[p + "ln_1.bias"] = rnd(C, scale=0.1)
        w[p + "attn.c_attn.weight"] = rnd(C, 3 * C)
        w[p + "attn.c_attn.bias"] = rnd(3 * C, scale=0.1)
        w[p + "attn.c_proj.weight"] = rnd(C, C)
        w[p + "attn.c_proj.bias"] = rnd(C, scale=0.1)
        w[p + "ln_2.weight"] = rnd(C, scale=0.2, mean=1.0)
        w[p + "ln_2.bias"] = rnd(C, scale=0.1)
        w[p + "mlp.c_fc.weight"] = rnd(C, 4 * C)
        w[p + "mlp.c_fc.bias"] = rnd(4 * C, scale=0.1)
        w[p + "mlp.c_proj.weight"] = rnd(4 * C, C, scale=0.15)
        w[p + "mlp.c_proj.bias"] = rnd(C, scale=0.1)
    w["ln_f.weight"] = rnd(C, scale=0.2, mean=1.0)
    w["ln_f.bias"] = rnd(C, scale=0.1)
    return w


def gpt2_forward(w, idx):
    """GPT-2's forward from its architecture, in double: Conv1D is x @ W + b."""
    d = {k: v.double() for k, v in w.items()}
    Bn, Tn = idx.shape
    hs = C // NH

    def ln(x, name):
        return F.layer_norm(x, (C,), d[name + ".weight"], d[name + ".bias"], 1e-5)

    def gelu_tanh(x):
        return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))

    x = d["wte.weight"][idx] + d["wpe.weight"][:Tn]
    mask = torch.tril(torch.ones(Tn, Tn, dtype=torch.bool))
    for l in range(L):
        p = f"h.{l}."
        h = ln(x, p + "ln_1")
        qkv = h @ d[p + "attn.c_attn.weight"] + d[p + "attn.c_attn.bias"]
        q, k, v = qkv.split(C, dim=2)
        q, k, v = (t.view(Bn, Tn, NH, hs).transpose(1, 2) for t in (q, k, v))
        att = (q @ k.transpose(-2, -1)) / math.sqrt(hs)
        att = att.masked_fill(~mask, float("-inf")).softmax(dim=-1)
        y = (att @ v).transpose(1, 2).reshape(Bn, Tn, C)
        x = x + y @ d[p + "attn.c_proj.weight"] + d[p + "attn.c_proj.bias"]
        h = ln(x, p + "ln_2")
        m = gelu_tanh(h @ d[p + "mlp.c_fc.weight"] + d[p + "mlp.c_fc.bias"])
        x = x + m @ d[p + "mlp.c_proj.weight"] + d[p + "mlp.c_proj.bias"]
    x = ln(x, "ln_f")
    return x @ d["wte.weight"].T


def hf_config():
    return {
        "activation_function": "gelu_new", "architectures": ["GPT2LMHeadModel"],
        "attn_pdrop": 0.1, "bos_token_id": V - 1, "embd_pdrop": 0.1, "eos_token_id": V - 1,
        "initializer_range": 0.02, "layer_norm_epsilon": 1e-05, "model_type": "gpt2",
        "n_ctx": T_MAX, "n_embd": C, "n_head": NH, "n_layer": L, "n_positions": T_MAX,
        "resid_pdrop": 0.1, "vocab_size": V,
    }


def write_hf(dirname, tensors):
    os.makedirs(dirname, exist_ok=True)
    with open(os.path.join(dirname, "config.json"), "w") as f:
        json.dump(hf_config(), f, indent=2)
    safetensors_io.save(os.path.join(dirname, "model.safetensors"), tensors, {"format": "pt"})


def llmc_tensors(w):
    """llm.c's parameter order; its weights are (out, in): the Conv1D weights transposed."""
    Vp = (V + 127) // 128 * 128
    wte = torch.zeros(Vp, C)
    wte[:V] = w["wte.weight"]
    def stack(name, t=False):
        return torch.stack([w[f"h.{l}.{name}"].T if t else w[f"h.{l}.{name}"] for l in range(L)])
    return Vp, [wte, w["wpe.weight"], stack("ln_1.weight"), stack("ln_1.bias"),
                stack("attn.c_attn.weight", True), stack("attn.c_attn.bias"),
                stack("attn.c_proj.weight", True), stack("attn.c_proj.bias"),
                stack("ln_2.weight"), stack("ln_2.bias"),
                stack("mlp.c_fc.weight", True), stack("mlp.c_fc.bias"),
                stack("mlp.c_proj.weight", True), stack("mlp.c_proj.bias"),
                w["ln_f.weight"], w["ln_f.bias"]]


def nanogpt_state_dict(w, nanogpt):
    """nanoGPT's own GPT with these weights; its state_dict as PyTorch >= 2 has it."""
    src = nanogpt
    tmp = None
    if os.path.isdir(os.path.join(nanogpt, "objects")) or nanogpt.endswith(".git") or \
            os.path.isfile(os.path.join(nanogpt, "HEAD")):
        tmp = tempfile.mkdtemp()
        model_py = subprocess.check_output(["git", "--git-dir", nanogpt, "show", "HEAD:model.py"])
        with open(os.path.join(tmp, "model.py"), "wb") as f:
            f.write(model_py)
        src = tmp
    if not hasattr(F, "scaled_dot_product_attention"):
        # PyTorch 1.13 lacks it, and nanoGPT then registers attn.bias mask buffers; give it the
        # causal attention PyTorch 2 has, so its state_dict is the one PyTorch 2 users get.
        def sdpa(q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False):
            att = (q @ k.transpose(-2, -1)) / math.sqrt(q.size(-1))
            if is_causal:
                n = q.size(-2)
                att = att.masked_fill(~torch.tril(torch.ones(n, n, dtype=torch.bool)), float("-inf"))
            return att.softmax(dim=-1) @ v
        F.scaled_dot_product_attention = sdpa
    spec = importlib.util.spec_from_file_location("nanogpt_model", os.path.join(src, "model.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    cfg = mod.GPTConfig(block_size=T_MAX, vocab_size=V, n_layer=L, n_head=NH, n_embd=C,
                        dropout=0.0, bias=True)
    model = mod.GPT(cfg)
    sd = model.state_dict()
    # nanoGPT's from_pretrained: the Conv1D weights transposed into its nn.Linear.
    for k in sd:
        if k == "lm_head.weight":
            theirs = w["wte.weight"]
        else:
            theirs = w[k[len("transformer."):]]
            if k.endswith(("attn.c_attn.weight", "attn.c_proj.weight", "mlp.c_fc.weight",
                           "mlp.c_proj.weight")):
                theirs = theirs.T
        assert sd[k].shape == theirs.shape, k
        sd[k] = theirs.contiguous()
    model.load_state_dict(sd, strict=True)
    model.eval()
    sd = {k: v.detach().clone() for k, v in model.state_dict().items()}
    model_args = dict(block_size=T_MAX, vocab_size=V, n_layer=L, n_head=NH, n_embd=C,
                      dropout=0.0, bias=True)
    return sd, model, model_args


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nanogpt", default=os.environ.get("NANOGPT_SRC"),
                    help="nanoGPT checkout or git dir (for nanogpt.safetensors)")
    args = ap.parse_args()
    torch.manual_seed(0)
    w = random_weights()
    g = torch.Generator().manual_seed(7)
    idx = torch.randint(0, V, (B, T), generator=g)
    targets = torch.randint(0, V, (B, T), generator=g)
    logits = gpt2_forward(w, idx)
    loss = F.cross_entropy(logits.view(-1, V), targets.view(-1))
    os.makedirs(OUT, exist_ok=True)
    safetensors_io.save(os.path.join(OUT, "logits.safetensors"),
                        {"idx": idx.int(), "targets": targets.int(), "logits": logits,
                         "loss": loss.reshape(1)})

    hub = dict(w)
    mask = torch.tril(torch.ones(T_MAX, T_MAX)).view(1, 1, T_MAX, T_MAX)
    for l in range(L):
        hub[f"h.{l}.attn.bias"] = mask
    write_hf(os.path.join(OUT, "hub"), hub)
    saved = {"transformer." + k: v for k, v in w.items()}
    write_hf(os.path.join(OUT, "saved_nohead"), saved)
    saved["lm_head.weight"] = w["wte.weight"]
    write_hf(os.path.join(OUT, "saved"), saved)

    Vp, tensors = llmc_tensors(w)
    header = np.zeros(256, dtype=np.int32)
    header[:8] = [20240326, 3, T_MAX, V, L, NH, C, Vp]
    with open(os.path.join(OUT, "llmc.bin"), "wb") as f:
        f.write(header.tobytes())
        for t in tensors:
            f.write(t.contiguous().numpy().astype(np.float32).tobytes())

    if args.nanogpt:
        sd, model, model_args = nanogpt_state_dict(w, args.nanogpt)
        with torch.no_grad():
            theirs, _ = model(idx, targets)
        # nanoGPT's MLP is the exact GELU, GPT-2's the tanh one: close, not equal.
        err = (theirs.double() - logits).abs().max().item()
        print(f"nanoGPT's forward vs GPT-2's (exact vs tanh GELU): max |diff| {err:.2e}")
        assert err < 5e-2, err
        safetensors_io.save(os.path.join(OUT, "nanogpt.safetensors"), sd,
                            {"model_args": json.dumps(model_args)})
    else:
        print("no --nanogpt: nanogpt.safetensors left as it is")
    print("wrote", os.path.abspath(OUT))


if __name__ == "__main__":
    main()
