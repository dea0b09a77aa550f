#!/usr/bin/python3
"""pytorch_char_reference.py: the shakespeare-char-small recipe trained in PyTorch, the reference
for the "Training quality" section of BENCHMARKS.md.

nanoGPT's choices written out here: GELU MLP, head tied to wte, no biases, init N(0, 0.02) with
c_proj weights N(0, 0.02/sqrt(2L)), AdamW betas (0.9, 0.99) with weight decay 0.1 on 2-D weights,
warmup 100 + cosine to 1e-4 over 2000 steps, global-norm clip 1.0, estimate_loss over 20 batches
every 250 steps. Reads the token files that `scratchgpt prepare` writes.
Usage: /usr/bin/python3 tools/pytorch_char_reference.py out/data/tinyshakespeare [SEED] [THREADS]
(THREADS defaults to 1: on a loaded 2-core machine two OpenMP threads ran ~15x slower.)
"""
import math, sys, time, struct
import torch, torch.nn as nn, torch.nn.functional as F

seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1337
torch.manual_seed(seed)
torch.set_num_threads(int(sys.argv[3]) if len(sys.argv) > 3 else 1)

def load(path):
    b = open(path, 'rb').read()
    n = struct.unpack_from('<Q', b, 8)[0]
    return torch.frombuffer(bytearray(b[32:32 + 2 * n]), dtype=torch.int16).to(torch.int64) & 0xFFFF

d = sys.argv[1]
train, val = load(d + '/train.bin'), load(d + '/val.bin')
V, T, B, L, NH, C = 65, 64, 12, 4, 4, 128

class LN(nn.Module):
    def __init__(s):
        super().__init__(); s.weight = nn.Parameter(torch.ones(C))
    def forward(s, x): return F.layer_norm(x, (C,), s.weight, None, 1e-5)

class Block(nn.Module):
    def __init__(s):
        super().__init__()
        s.ln_1, s.ln_2 = LN(), LN()
        s.c_attn = nn.Linear(C, 3 * C, bias=False); s.c_proj = nn.Linear(C, C, bias=False)
        s.c_fc = nn.Linear(C, 4 * C, bias=False); s.mlp_proj = nn.Linear(4 * C, C, bias=False)
    def forward(s, x):
        Bb, Tt, _ = x.shape
        q, k, v = s.c_attn(s.ln_1(x)).split(C, dim=2)
        q, k, v = [t.view(Bb, Tt, NH, C // NH).transpose(1, 2) for t in (q, k, v)]
        att = (q @ k.transpose(-2, -1)) / math.sqrt(C // NH)
        att = att.masked_fill(torch.triu(torch.ones(Tt, Tt, dtype=torch.bool), 1), float('-inf'))
        y = (F.softmax(att, dim=-1) @ v).transpose(1, 2).contiguous().view(Bb, Tt, C)
        x = x + s.c_proj(y)
        return x + s.mlp_proj(F.gelu(s.c_fc(s.ln_2(x))))

class GPT(nn.Module):
    def __init__(s):
        super().__init__()
        s.wte, s.wpe = nn.Embedding(V, C), nn.Embedding(T, C)
        s.h = nn.ModuleList([Block() for _ in range(L)]); s.ln_f = LN()
        s.head = nn.Linear(C, V, bias=False); s.wte.weight = s.head.weight
        for n, p in s.named_parameters():
            if p.dim() == 2: nn.init.normal_(p, 0.0, 0.02 / math.sqrt(2 * L) if n.endswith(('c_proj.weight', 'mlp_proj.weight')) else 0.02)
    def forward(s, idx, tgt):
        x = s.wte(idx) + s.wpe(torch.arange(idx.shape[1]))
        for b in s.h: x = b(x)
        return F.cross_entropy(s.head(s.ln_f(x)).view(-1, V), tgt.view(-1))

def batch(data):
    ix = torch.randint(len(data) - T, (B,))
    return torch.stack([data[i:i + T] for i in ix]), torch.stack([data[i + 1:i + T + 1] for i in ix])

m = GPT()
params = {n: p for n, p in m.named_parameters()}
opt = torch.optim.AdamW([{'params': [p for p in params.values() if p.dim() >= 2], 'weight_decay': 0.1},
                         {'params': [p for p in params.values() if p.dim() < 2], 'weight_decay': 0.0}],
                        lr=1e-3, betas=(0.9, 0.99))
def lr_at(it):
    if it < 100: return 1e-3 * (it + 1) / 101
    r = (it - 100) / 1900
    return 1e-4 + 0.5 * (1 + math.cos(math.pi * r)) * (1e-3 - 1e-4)
best = 9; t0 = time.time()
for it in range(2001):
    if it % 250 == 0:
        m.eval()
        with torch.no_grad():
            out = [sum(m(*batch(dd)).item() for _ in range(20)) / 20 for dd in (train, val)]
        m.train(); best = min(best, out[1])
        print(f'step {it}: train {out[0]:.4f} val {out[1]:.4f} ({time.time() - t0:.0f} s)', flush=True)
    if it == 2000: break
    for g in opt.param_groups: g['lr'] = lr_at(it)
    loss = m(*batch(train)); loss.backward()
    torch.nn.utils.clip_grad_norm_(m.parameters(), 1.0); opt.step(); opt.zero_grad(set_to_none=True)
print(f'seed {seed}: best val {best:.4f}, {time.time() - t0:.0f} s')
