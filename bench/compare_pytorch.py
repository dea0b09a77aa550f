#!/usr/bin/python3
"""compare_pytorch.py: scratchgpt vs PyTorch on the same GPT training step, in one run.

Runs `scratchgpt bench --json` for a preset, then times a nanoGPT-equivalent model written here
(same config as that JSON: LayerNorm, fused qkv causal attention with a -inf mask and softmax,
tanh-GELU MLP, tied lm_head, AdamW, global-norm clip 1.0) with torch.set_num_threads(threads),
and prints both and the ratios. PyTorch runs at its best: the OpenMP OpenBLAS (the script
restarts itself with LD_LIBRARY_PATH pointing at it, and prints which BLAS torch loaded). Debian's torch 1.13 (no scaled_dot_product_attention, so this is
nanoGPT's non-flash path). Leaves out: data loading and evaluation, as `scratchgpt bench` does.

--sample N compares sampling instead: `scratchgpt bench --sample N --json` (batch 1, a 1-token
prompt, N new tokens through its KV cache) against nanoGPT's generate() on the same-shaped model
(eval mode, no_grad, no KV cache: crop to block_size, full forward, last position's logits /
temperature, softmax, torch.multinomial, append), timed for the same N tokens.

  /usr/bin/python3 bench/compare_pytorch.py --preset shakespeare-char-small
  /usr/bin/python3 bench/compare_pytorch.py --preset gpt2 --binary build/release/scratchgpt
  /usr/bin/python3 bench/compare_pytorch.py --preset shakespeare-char --sample 500
"""
import argparse
import json
import math
import os
import resource
import statistics
import subprocess
import sys
import time


def _threads_from_argv(flag, default):
    for i, a in enumerate(sys.argv):
        if a == flag and i + 1 < len(sys.argv) and sys.argv[i + 1] != "0":
            return sys.argv[i + 1]
        if a.startswith(flag + "=") and a.split("=", 1)[1] != "0":
            return a.split("=", 1)[1]
    return default


# PyTorch at its best (../shared/bench/pytorch_anchor's setup): Debian's torch does its float
# matmuls through libblas.so.3, and the OpenMP build of OpenBLAS (apt-get install
# libopenblas0-openmp) shares torch's OpenMP threads instead of oversubscribing the cores. The
# loader reads LD_LIBRARY_PATH only at start, so the script restarts itself once with it set.
# Thread counts must be set before torch is imported.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pytorch_at_its_best as best  # noqa: E402

_env = best.openmp_openblas_env()
if _env is not None and _env.get("LD_LIBRARY_PATH") != os.environ.get("LD_LIBRARY_PATH"):
    os.execve(sys.executable, [sys.executable] + sys.argv, _env)
_torch_threads = _threads_from_argv("--torch-threads", None) or _threads_from_argv("--threads", "2")
os.environ.setdefault("OPENBLAS_NUM_THREADS", _torch_threads)
os.environ.setdefault("OMP_NUM_THREADS", _torch_threads)

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402


class CausalSelfAttention(nn.Module):
    def __init__(self, c):
        super().__init__()
        C = c["n_embd"]
        self.n_head = c["n_head"]
        self.c_attn = nn.Linear(C, 3 * C, bias=c["bias"])
        self.c_proj = nn.Linear(C, C, bias=c["bias"])
        self.attn_dropout = nn.Dropout(c["dropout"])
        self.resid_dropout = nn.Dropout(c["dropout"])
        T = c["block_size"]
        self.register_buffer("mask", torch.tril(torch.ones(T, T)).view(1, 1, T, T))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(C, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)  # (B, NH, T, HS)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))  # (B, NH, T, T)
        att = att.masked_fill(self.mask[:, :, :T, :T] == 0, float("-inf"))
        att = self.attn_dropout(F.softmax(att, dim=-1))
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
        return self.resid_dropout(self.c_proj(y))


class MLP(nn.Module):
    def __init__(self, c):
        super().__init__()
        C = c["n_embd"]
        self.c_fc = nn.Linear(C, 4 * C, bias=c["bias"])
        self.act = nn.GELU(approximate="tanh") if c["activation"] == "gelu" else nn.ReLU()
        self.c_proj = nn.Linear(4 * C, C, bias=c["bias"])
        self.dropout = nn.Dropout(c["dropout"])

    def forward(self, x):
        return self.dropout(self.c_proj(self.act(self.c_fc(x))))


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.ln_1 = nn.LayerNorm(c["n_embd"], elementwise_affine=True)
        self.attn = CausalSelfAttention(c)
        self.ln_2 = nn.LayerNorm(c["n_embd"], elementwise_affine=True)
        self.mlp = MLP(c)
        if not c["bias"]:  # nanoGPT's LayerNorm(bias=False)
            self.ln_1.bias = None
            self.ln_2.bias = None

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.wte = nn.Embedding(c["vocab_size"], c["n_embd"])
        self.wpe = nn.Embedding(c["block_size"], c["n_embd"])
        self.drop = nn.Dropout(c["dropout"])
        self.h = nn.ModuleList([Block(c) for _ in range(c["n_layer"])])
        self.ln_f = nn.LayerNorm(c["n_embd"])
        if not c["bias"]:
            self.ln_f.bias = None
        self.lm_head = nn.Linear(c["n_embd"], c["vocab_size"], bias=False)
        if c["tied"]:
            self.wte.weight = self.lm_head.weight

    def forward(self, idx, targets=None):
        B, T = idx.size()
        pos = torch.arange(0, T, dtype=torch.long)
        x = self.drop(self.wte(idx) + self.wpe(pos))
        for block in self.h:
            x = block(x)
        if targets is None:  # nanoGPT's inference-time shortcut: lm_head on the last position only
            return self.lm_head(self.ln_f(x[:, [-1], :]))
        logits = self.lm_head(self.ln_f(x))
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))

    @torch.no_grad()
    def generate(self, idx, max_new_tokens, temperature=1.0, top_k=None):
        """nanoGPT's generate: no KV cache, the whole (cropped) context runs every step."""
        block_size = self.wpe.weight.size(0)
        for _ in range(max_new_tokens):
            idx_cond = idx if idx.size(1) <= block_size else idx[:, -block_size:]
            logits = self(idx_cond)
            logits = logits[:, -1, :] / temperature
            if top_k is not None:
                v, _ = torch.topk(logits, min(top_k, logits.size(-1)))
                logits[logits < v[:, [-1]]] = -float("Inf")
            probs = F.softmax(logits, dim=-1)
            idx_next = torch.multinomial(probs, num_samples=1)
            idx = torch.cat((idx, idx_next), dim=1)
        return idx


def bench_torch(c, steps, warmup, threads):
    torch.manual_seed(1337)
    torch.set_num_threads(threads)
    model = GPT(c)
    model.train()
    # nanoGPT's two groups: decay on 2-D weights only.
    decay = [p for p in model.parameters() if p.dim() >= 2]
    no_decay = [p for p in model.parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1},
                             {"params": no_decay, "weight_decay": 0.0}],
                            lr=1e-3, betas=(0.9, 0.99), eps=1e-8)
    B, T, V = c["batch_size"], c["seq_len"], c["vocab_size"]
    fwd, bwd, optim = [], [], []
    for step in range(warmup + steps):
        x = torch.randint(V, (B, T))
        y = torch.randint(V, (B, T))
        t0 = time.perf_counter()
        loss = model(x, y)
        t1 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        t2 = time.perf_counter()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        t3 = time.perf_counter()
        if step >= warmup:
            fwd.append(t1 - t0)
            bwd.append(t2 - t1)
            optim.append(t3 - t2)
    total = [a + b + d for a, b, d in zip(fwd, bwd, optim)]
    step_s = statistics.median(total)
    n_params = sum(p.numel() for p in model.parameters())
    return {
        "impl": "pytorch " + torch.__version__,
        "threads": torch.get_num_threads(),
        "params": n_params,
        "loss": float(loss),
        "ms_forward": statistics.median(fwd) * 1e3,
        "ms_backward": statistics.median(bwd) * 1e3,
        "ms_optimizer": statistics.median(optim) * 1e3,
        "ms_per_step": step_s * 1e3,
        "tokens_per_s": B * T / step_s,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
    }


def sample_torch(c, new_tokens, threads):
    """Times model.generate for new_tokens tokens from a 1-token prompt, batch 1 (after a short
    untimed warm-up), on a randomly initialised model of c's shape."""
    torch.manual_seed(1337)
    torch.set_num_threads(threads)
    model = GPT(c)
    model.eval()
    prompt = torch.zeros((1, 1), dtype=torch.long)
    model.generate(prompt, min(new_tokens, 16), temperature=1.0)
    t0 = time.perf_counter()
    out = model.generate(prompt, new_tokens, temperature=1.0)
    secs = time.perf_counter() - t0
    assert out.size(1) == 1 + new_tokens
    return {
        "impl": "pytorch " + torch.__version__,
        "threads": torch.get_num_threads(),
        "params": sum(p.numel() for p in model.parameters()),
        "seconds": secs,
        "tokens_per_s": new_tokens / secs,
        "ms_per_token": secs * 1e3 / new_tokens,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
    }


def compare_sample(a):
    cmd = [find_binary(a.binary), "bench", "--preset", a.preset, "--sample", str(a.sample),
           "--threads", str(a.threads), "--json"]
    print("$ " + " ".join(cmd), flush=True)
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    ours = json.loads(out.strip().splitlines()[-1])
    c = dict(ours)  # the model config comes from scratchgpt's own report
    c["dropout"] = 0.0
    theirs = sample_torch(c, a.sample, a.torch_threads or a.threads)
    print(f"preset {a.preset}: L={c['n_layer']} NH={c['n_head']} C={c['n_embd']} "
          f"V={c['vocab_size']} block_size={c['block_size']}, batch 1, 1-token prompt, "
          f"{a.sample} new tokens (temperature 1); threads: scratchgpt {ours['threads']}, "
          f"pytorch {theirs['threads']}")
    print("scratchgpt: KV cache (context crops re-prefill block_size/2 tokens: "
          f"{ours['context_crops']}); pytorch: nanoGPT generate, full forward of the cropped "
          "context every token")
    print(f"{'':16}{'scratchgpt':>14}{'pytorch':>14}{'ratio':>10}")
    for label, key in [("tokens/s", "tokens_per_s"), ("ms/token", "ms_per_token"),
                       ("seconds", "seconds"), ("peak RSS MB", "peak_rss_mb")]:
        s, p = ours[key], theirs[key]
        ratio = s / p if key == "tokens_per_s" else p / s  # > 1: scratchgpt better
        print(f"{label:16}{s:14.2f}{p:14.2f}{ratio:9.2f}x")
    speedup = ours["tokens_per_s"] / theirs["tokens_per_s"]
    print(f"speedup (tokens/s): {speedup:.2f}x")
    if a.json:
        print(json.dumps({"scratchgpt": ours, "pytorch": theirs, "speedup": speedup}))


def find_binary(path):
    if path:
        return path
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for cand in ["build/release/scratchgpt", "build/ci/scratchgpt", "build/scratchgpt"]:
        p = os.path.join(root, cand)
        if os.path.exists(p):
            return p
    sys.exit("error: no scratchgpt binary found; build it (cmake --preset release && "
             "cmake --build --preset release) or pass --binary PATH")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--preset", default="shakespeare-char-small",
                    help="shakespeare-char-small | shakespeare-char | gpt2")
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--torch-threads", type=int, default=0,
                    help="threads for PyTorch (default: --threads); on a loaded machine torch's "
                         "OpenMP + OpenBLAS threads can do far better with 1")
    ap.add_argument("--binary", default="", help="path of the scratchgpt CLI")
    ap.add_argument("--json", action="store_true", help="print one JSON object at the end")
    ap.add_argument("--sample", type=int, default=0, metavar="N",
                    help="compare sampling instead of training: N new tokens, batch 1, ours "
                         "(KV cache) vs nanoGPT's generate (no cache)")
    a = ap.parse_args()
    torch.ones(2, 2) @ torch.ones(2, 2)  # loads the BLAS
    blas = best.loaded_blas()
    print(f"PyTorch {torch.__version__}, BLAS: {', '.join(blas) or 'none found'}", flush=True)
    if best.is_reference_blas(blas):
        sys.exit("compare_pytorch: PyTorch loaded the reference BLAS, not OpenBLAS: "
                 "apt-get install libopenblas0-openmp")
    if a.sample > 0:
        return compare_sample(a)

    cmd = [find_binary(a.binary), "bench", "--preset", a.preset, "--steps", str(a.steps),
           "--warmup", str(a.warmup), "--threads", str(a.threads), "--json"]
    print("$ " + " ".join(cmd), flush=True)
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    ours = json.loads(out.strip().splitlines()[-1])
    c = dict(ours)  # the model config comes from scratchgpt's own report
    theirs = bench_torch(c, a.steps, a.warmup, a.torch_threads or a.threads)

    print(f"preset {a.preset}: L={c['n_layer']} NH={c['n_head']} C={c['n_embd']} "
          f"V={c['vocab_size']} B={c['batch_size']} T={c['seq_len']} dropout={c['dropout']}, "
          f"{a.steps} timed steps (median), threads: scratchgpt {ours['threads']}, "
          f"pytorch {theirs['threads']}")
    rows = [("ms/step", "ms_per_step"), ("  forward ms", "ms_forward"),
            ("  backward ms", "ms_backward"), ("  optimizer ms", "ms_optimizer"),
            ("tokens/s", "tokens_per_s"), ("peak RSS MB", "peak_rss_mb")]
    print(f"{'':16}{'scratchgpt':>14}{'pytorch':>14}{'ratio':>10}")
    for label, key in rows:
        s, p = ours[key], theirs[key]
        ratio = s / p if key == "tokens_per_s" else p / s  # > 1: scratchgpt better
        print(f"{label:16}{s:14.1f}{p:14.1f}{ratio:9.2f}x")
    fpt = ours["flops_per_token"]
    for name, r in [("scratchgpt", ours), ("pytorch", theirs)]:
        g = fpt * r["tokens_per_s"] * 1e-9
        extra = "".join(f", {100 * g / ours[k]:.1f}% of {k[len('peak_gflops_'):]} peak "
                        f"({ours[k]:.1f})" for k in ("peak_gflops_avx2", "peak_gflops_avx512")
                        if ours.get(k))
        print(f"{name:12} {g:7.1f} GFLOP/s{extra}")
    print(f"speedup (tokens/s): {ours['tokens_per_s'] / theirs['tokens_per_s']:.2f}x")
    if a.json:
        print(json.dumps({"scratchgpt": ours, "pytorch": theirs,
                          "speedup": ours["tokens_per_s"] / theirs["tokens_per_s"]}))


if __name__ == "__main__":
    main()
