#!/usr/bin/python3
"""make_gpt_fixtures.py: PyTorch's answers for the whole GPT, for tests/nn/gpt_pytorch_test.cpp.

A nanoGPT-equivalent model written here (same modules, same order, same init), in two variants:
  relu_bias:  ReLU MLP, biases in Linear and LayerNorm, separate lm_head (the lecture's model)
  gelu_tied:  GELU (tanh) MLP, no biases, lm_head tied to wte (GPT-2's choices)
  gelu_exact_tied: as gelu_tied with the exact (erf) GELU, nanoGPT's nn.GELU() (its own generator)
Tiny config: V=11, block_size=8, L=2, NH=2, C=16, dropout 0. For each variant and for T=8 (the full
block) and T=5 (shorter), writes tests/fixtures/gpt/<variant>_T<T>.safetensors holding
  param.<name>      float32 weights under the C++ checkpoint names (wte, blocks.0.ln_1.weight, ...)
  idx, targets      (B, T) int32
  logits, loss      float64 truth: the model evaluated in double from the same float32 weights
  grad.<name>       float64 gradient of the mean loss for every parameter
  adamw<k>.<name>   (T=8 only) float64 parameters after k = 1, 2, 3 steps of torch.optim.AdamW
                    (lr 1e-3, betas (0.9, 0.99), eps 1e-8, weight decay 0.1 on 2-D params only,
                    as nanoGPT's configure_optimizers), each step a forward/backward on the batch
                    (the key-bias gradient, exactly 0 in exact arithmetic, set to 0: see
                    zero_key_bias_grad)
  loss_step<k>      float64 loss before step k
dropout_relu_bias_T8.safetensors: relu_bias with dropout 0.2 in training mode after
torch.manual_seed(42) (float32 logits, loss, gradients; eval_loss without dropout).
medium_gelu_bias_T24.safetensors: V=50, block_size=32, L=2, NH=4, C=72, B=2, T=24 (GELU, biases,
untied): logits, loss and gradients, to exercise the fast kernels' multi-tile paths.
It also writes init_seed1337.safetensors: the float32 weights nanoGPT's init draws after
torch.manual_seed(1337) for both variants (init_<variant>.<name>) and the first 64 torch.randn and
torch.rand values after that seed (to tell whether the C++ Rng is already torch-exact).
The weights for the comparisons are not nanoGPT's N(0, 0.02) init (that makes nearly uniform
logits and tiny gradients) but larger random values, with LayerNorm weights and biases away from
1 and 0. Deterministic. Regenerate from the repository root with Debian's PyTorch 1.13:

    /usr/bin/python3 tools/make_gpt_fixtures.py [--out tests/fixtures/gpt]
"""
import argparse
import math
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import safetensors_io  # noqa: E402

V, BLOCK, L, NH, C = 11, 8, 2, 2, 16  # the tiny config; cfg entries override them
DIMS = dict(V=V, block_size=BLOCK, n_layer=L, n_head=NH, n_embd=C)


class LayerNorm(nn.Module):
    """LayerNorm with an optional bias (nanoGPT's; torch 1.13's nn.LayerNorm cannot drop it)."""

    def __init__(self, ndim, bias):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(ndim))
        self.bias = nn.Parameter(torch.zeros(ndim)) if bias else None

    def forward(self, x):
        return F.layer_norm(x, self.weight.shape, self.weight, self.bias, 1e-5)


class CausalSelfAttention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        C, NH, BLOCK = cfg["n_embd"], cfg["n_head"], cfg["block_size"]
        self.C, self.NH = C, NH
        self.c_attn = nn.Linear(C, 3 * C, bias=cfg["bias"])
        self.c_proj = nn.Linear(C, C, bias=cfg["bias"])
        self.attn_dropout = nn.Dropout(cfg["dropout"])
        self.resid_dropout = nn.Dropout(cfg["dropout"])
        self.register_buffer("mask", torch.tril(torch.ones(BLOCK, BLOCK)).view(1, 1, BLOCK, BLOCK))

    def forward(self, x):
        B, T, _ = x.size()
        C, NH = self.C, self.NH
        q, k, v = self.c_attn(x).split(C, dim=2)
        q = q.view(B, T, NH, C // NH).transpose(1, 2)  # (B, NH, T, HS)
        k = k.view(B, T, NH, C // NH).transpose(1, 2)
        v = v.view(B, T, NH, C // NH).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))  # (B, NH, T, T)
        att = att.masked_fill(self.mask[:, :, :T, :T] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        att = self.attn_dropout(att)
        y = att @ v  # (B, NH, T, HS)
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.resid_dropout(self.c_proj(y))


class MLP(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        C = cfg["n_embd"]
        self.c_fc = nn.Linear(C, 4 * C, bias=cfg["bias"])
        self.act = {"relu": nn.ReLU(), "gelu": nn.GELU(approximate="tanh"),
                    "gelu-exact": nn.GELU()}[cfg["activation"]]
        self.c_proj = nn.Linear(4 * C, C, bias=cfg["bias"])
        self.dropout = nn.Dropout(cfg["dropout"])

    def forward(self, x):
        return self.dropout(self.c_proj(self.act(self.c_fc(x))))


class Block(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        C = cfg["n_embd"]
        self.ln_1 = LayerNorm(C, cfg["bias"])
        self.attn = CausalSelfAttention(cfg)
        self.ln_2 = LayerNorm(C, cfg["bias"])
        self.mlp = MLP(cfg)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    """nanoGPT's GPT with transformer.{wte, wpe, drop, h, ln_f} flattened to our names."""

    def __init__(self, cfg):
        super().__init__()
        V, BLOCK, L, C = cfg["V"], cfg["block_size"], cfg["n_layer"], cfg["n_embd"]
        self.wte = nn.Embedding(V, C)
        self.wpe = nn.Embedding(BLOCK, C)
        self.drop = nn.Dropout(cfg["dropout"])
        self.blocks = nn.ModuleList([Block(cfg) for _ in range(L)])
        self.ln_f = LayerNorm(C, cfg["bias"])
        self.lm_head = nn.Linear(C, V, bias=False)
        if cfg["tied"]:
            self.wte.weight = self.lm_head.weight
        self.apply(self._init_weights)
        for pn, p in self.named_parameters():
            if pn.endswith("c_proj.weight"):
                torch.nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * L))

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                torch.nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)

    def forward(self, idx, targets):
        B, T = idx.size()
        pos = torch.arange(0, T, dtype=torch.long)
        x = self.drop(self.wte(idx) + self.wpe(pos))
        for block in self.blocks:
            x = block(x)
        logits = self.lm_head(self.ln_f(x))
        loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))
        return logits, loss


VARIANTS = {
    "relu_bias": dict(DIMS, activation="relu", bias=True, tied=False, dropout=0.0),
    "gelu_tied": dict(DIMS, activation="gelu", bias=False, tied=True, dropout=0.0),
}


def our_name(torch_name):
    """'wte.weight' -> 'wte', 'wpe.weight' -> 'wpe'; every other name is already ours."""
    return {"wte.weight": "wte", "wpe.weight": "wpe"}.get(torch_name, torch_name)


def randomize(model, gen):
    """Weights large enough that every path carries signal (see the module docstring)."""
    with torch.no_grad():
        for name, p in model.named_parameters():
            r = torch.randn(p.shape, generator=gen)
            if name in ("wte.weight", "wpe.weight"):
                p.copy_(0.5 * r)
            elif p.dim() == 2:  # Linear (OC, C)
                p.copy_(r / math.sqrt(p.shape[1]))
            elif "ln" in name and name.endswith("weight"):
                p.copy_(1.0 + 0.2 * r)
            else:  # biases
                p.copy_(0.1 * r)


def zero_key_bias_grad(model):
    """The key bias cannot change the loss (q . (k + b) shifts a whole softmax row by q . b), so
    its exact gradient is 0 and what float arithmetic leaves there is noise that AdamW would turn
    into +-lr steps. Both sides zero it before each optimizer step, so the steps are comparable."""
    for block in model.blocks:
        if block.attn.c_attn.bias is not None:
            C = block.attn.C
            block.attn.c_attn.bias.grad[C:2 * C] = 0.0


def make_variant(cfg, gen, out_dir, variant):
    torch.manual_seed(0)
    model = GPT(cfg)
    randomize(model, gen)
    params32 = {our_name(n): p.detach().clone() for n, p in model.named_parameters()}
    model = model.double()
    B = 3
    for T in (BLOCK, 5):
        idx = torch.randint(0, V, (B, T), generator=gen)
        targets = torch.randint(0, V, (B, T), generator=gen)
        idx[0, 1] = idx[0, 3] = idx[2, 0]  # repeated tokens: embedding gradients must add up
        # Fresh copy of the float32 weights for every T, evaluated in double.
        with torch.no_grad():
            for n, p in model.named_parameters():
                p.copy_(params32[our_name(n)].double())
        out = {f"param.{k}": v for k, v in params32.items()}
        out["idx"] = idx.to(torch.int32)
        out["targets"] = targets.to(torch.int32)
        model.zero_grad()
        logits, loss = model(idx, targets)
        loss.backward()
        out["logits"] = logits.detach()
        out["loss"] = loss.detach().reshape(1)
        for n, p in model.named_parameters():
            out[f"grad.{our_name(n)}"] = p.grad.detach().clone()
        if T == BLOCK:
            decay = [p for p in model.parameters() if p.dim() >= 2]
            nodecay = [p for p in model.parameters() if p.dim() < 2]
            opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1},
                                     {"params": nodecay, "weight_decay": 0.0}],
                                    lr=1e-3, betas=(0.9, 0.99), eps=1e-8)
            for k in (1, 2, 3):
                opt.zero_grad()
                _, step_loss = model(idx, targets)
                step_loss.backward()
                zero_key_bias_grad(model)
                opt.step()
                out[f"loss_step{k}"] = step_loss.detach().reshape(1)
                for n, p in model.named_parameters():
                    out[f"adamw{k}.{our_name(n)}"] = p.detach().clone()
        meta = {"variant": variant, "V": V, "block_size": BLOCK, "n_layer": L, "n_head": NH,
                "n_embd": C, "B": B, "T": T, "activation": cfg["activation"],
                "bias": int(cfg["bias"]), "tied": int(cfg["tied"])}
        path = os.path.join(out_dir, f"{variant}_T{T}.safetensors")
        safetensors_io.save(path, out, meta)
        print("wrote", path, "loss", float(loss))


def make_dropout(gen, out_dir):
    """Training mode with dropout 0.2 after torch.manual_seed(42): what nn.Dropout drops depends
    on the generator, so this pins the draw order (embeddings, then per block the attention
    weights, the attention output, the MLP output) and the mask scaling. Float32, as trained."""
    cfg = dict(VARIANTS["relu_bias"], dropout=0.2)
    torch.manual_seed(0)
    model = GPT(cfg)
    randomize(model, gen)
    model.train()
    B, T = 3, BLOCK
    idx = torch.randint(0, V, (B, T), generator=gen)
    targets = torch.randint(0, V, (B, T), generator=gen)
    out = {f"param.{our_name(n)}": p.detach().clone() for n, p in model.named_parameters()}
    torch.manual_seed(42)
    logits, loss = model(idx, targets)
    loss.backward()
    out.update(idx=idx.to(torch.int32), targets=targets.to(torch.int32), logits=logits.detach(),
               loss=loss.detach().reshape(1))
    for n, p in model.named_parameters():
        out[f"grad.{our_name(n)}"] = p.grad.detach().clone()
    model.eval()
    with torch.no_grad():
        _, eval_loss = model(idx, targets)
    out["eval_loss"] = eval_loss.reshape(1)
    meta = {"variant": "relu_bias_dropout", "V": V, "block_size": BLOCK, "n_layer": L,
            "n_head": NH, "n_embd": C, "B": B, "T": T, "activation": "relu", "bias": 1, "tied": 0,
            "dropout": 0.2, "seed": 42}
    path = os.path.join(out_dir, "dropout_relu_bias_T8.safetensors")
    safetensors_io.save(path, out, meta)
    print("wrote", path, "train loss", float(loss), "eval loss", float(eval_loss))


def make_medium(out_dir):
    """A config big enough for the fast kernels' multi-tile, multi-thread and K-blocked paths
    (c_proj's K = 4C = 288 exceeds one 256-wide K block, T = 24 spans several attention tiles, T <
    block_size). Gradients stored as float32 (computed in double) to keep the file small."""
    cfg = dict(V=50, block_size=32, n_layer=2, n_head=4, n_embd=72, activation="gelu", bias=True,
               tied=False, dropout=0.0)
    gen = torch.Generator().manual_seed(31337)
    torch.manual_seed(0)
    model = GPT(cfg)
    randomize(model, gen)
    params32 = {our_name(n): p.detach().clone() for n, p in model.named_parameters()}
    model = model.double()
    B, T = 2, 24
    idx = torch.randint(0, cfg["V"], (B, T), generator=gen)
    targets = torch.randint(0, cfg["V"], (B, T), generator=gen)
    logits, loss = model(idx, targets)
    loss.backward()
    out = {f"param.{k}": v for k, v in params32.items()}
    out.update(idx=idx.to(torch.int32), targets=targets.to(torch.int32),
               logits=logits.detach().float(), loss=loss.detach().reshape(1))
    for n, p in model.named_parameters():
        out[f"grad.{our_name(n)}"] = p.grad.detach().float()
    meta = {"variant": "medium_gelu_bias", "V": cfg["V"], "block_size": cfg["block_size"],
            "n_layer": cfg["n_layer"], "n_head": cfg["n_head"], "n_embd": cfg["n_embd"], "B": B,
            "T": T, "activation": "gelu", "bias": 1, "tied": 0}
    path = os.path.join(out_dir, "medium_gelu_bias_T24.safetensors")
    safetensors_io.save(path, out, meta)
    print("wrote", path, "loss", float(loss))


def make_init(out_dir):
    out = {}
    for variant, cfg in VARIANTS.items():
        torch.manual_seed(1337)
        model = GPT(cfg)
        for n, p in model.named_parameters():
            out[f"init_{variant}.{our_name(n)}"] = p.detach().clone()
    torch.manual_seed(1337)
    out["probe_randn"] = torch.randn(64)
    torch.manual_seed(1337)
    out["probe_rand"] = torch.rand(64)
    path = os.path.join(out_dir, "init_seed1337.safetensors")
    safetensors_io.save(path, out, {"seed": 1337, "V": V, "block_size": BLOCK, "n_layer": L,
                                    "n_head": NH, "n_embd": C})
    print("wrote", path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="tests/fixtures/gpt")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    gen = torch.Generator().manual_seed(20240611)
    for variant, cfg in VARIANTS.items():
        make_variant(cfg, gen, args.out, variant)
    make_dropout(gen, args.out)
    make_init(args.out)
    make_medium(args.out)
    # nanoGPT's own choice (exact erf GELU, no biases, tied), on its own generator so that the
    # files above stay as they were.
    make_variant(dict(DIMS, activation="gelu-exact", bias=False, tied=True, dropout=0.0),
                 torch.Generator().manual_seed(4242), args.out, "gelu_exact_tied")


if __name__ == "__main__":
    main()
