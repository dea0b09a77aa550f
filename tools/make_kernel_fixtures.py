#!/usr/bin/python3
"""make_kernel_fixtures.py: PyTorch's answers for every reference kernel, for the C++ tests.

For each kernel, writes tests/fixtures/kernels/<kernel>.safetensors holding float32 inputs, the
forward outputs, and the gradients autograd computes for a given upstream gradient `dout`. Shapes
are small and odd on purpose (B=3, T=7, C=20, NH=4, HS=5, OC=13, V=11) so off-by-one and layout
bugs show. Run with Debian's PyTorch (python3-torch 1.13):

    /usr/bin/python3 tools/make_kernel_fixtures.py [--out tests/fixtures/kernels]

Read by tests/kernels/ref_pytorch_test.cpp.
"""
import argparse
import math
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import safetensors_io  # noqa: E402

B, T, C, NH, OC, V = 3, 7, 20, 4, 13, 11
HS = C // NH
N = B * T


def leaf(*shape, lo=-1.0, hi=1.0):
    return (torch.rand(*shape, dtype=torch.float32) * (hi - lo) + lo).requires_grad_(True)


def grads(out, dout, *inputs):
    return torch.autograd.grad(out, inputs, dout)


def encoder():
    inp = torch.randint(0, V, (B, T), dtype=torch.int64)
    inp[0, 2] = inp[0, 5] = inp[1, 1]  # repeated tokens: their gradients must add up
    wte, wpe = leaf(V, C), leaf(T, C)
    pos = torch.arange(T)
    out = wte[inp] + wpe[pos]  # (B, T, C), as GPT.forward
    dout = torch.randn(B, T, C)
    dwte, dwpe = grads(out, dout, wte, wpe)
    out_nowpe = wte[inp]
    (dwte_nowpe,) = grads(out_nowpe, dout, wte)
    return dict(inp=inp.to(torch.int32), wte=wte, wpe=wpe, out=out, dout=dout, dwte=dwte,
                dwpe=dwpe, out_nowpe=out_nowpe, dwte_nowpe=dwte_nowpe)


def matmul():
    inp, weight, bias = leaf(N, C), leaf(OC, C), leaf(OC)
    out = F.linear(inp, weight, bias)  # (N, OC)
    dout = torch.randn(N, OC)
    dinp, dweight, dbias = grads(out, dout, inp, weight, bias)
    out_nobias = F.linear(inp, weight)
    return dict(inp=inp, weight=weight, bias=bias, out=out, out_nobias=out_nobias, dout=dout,
                dinp=dinp, dweight=dweight, dbias=dbias)


def layernorm():
    inp = leaf(N, C, lo=-2.0, hi=3.0)
    weight, bias = leaf(C, lo=0.5, hi=1.5), leaf(C)
    out = F.layer_norm(inp, (C,), weight, bias, eps=1e-5)
    dout = torch.randn(N, C)
    dinp, dweight, dbias = grads(out, dout, inp, weight, bias)
    out_nobias = F.layer_norm(inp, (C,), weight, None, eps=1e-5)  # nanoGPT's bias=False
    dinp_nobias, dweight_nobias = grads(out_nobias, dout, inp, weight)
    x = inp.detach().double()
    mean = x.mean(-1)
    rstd = 1.0 / torch.sqrt(x.var(-1, unbiased=False) + 1e-5)
    return dict(inp=inp, weight=weight, bias=bias, out=out, mean=mean.float(), rstd=rstd.float(),
                dout=dout, dinp=dinp, dweight=dweight, dbias=dbias, out_nobias=out_nobias,
                dinp_nobias=dinp_nobias, dweight_nobias=dweight_nobias)


def relu():
    inp = leaf(N, C, lo=-2.0, hi=2.0)
    out = F.relu(inp)
    dout = torch.randn(N, C)
    (dinp,) = grads(out, dout, inp)
    return dict(inp=inp, out=out, dout=dout, dinp=dinp)


def gelu():
    inp = leaf(N, C, lo=-5.0, hi=5.0)
    out = F.gelu(inp, approximate="tanh")
    dout = torch.randn(N, C)
    (dinp,) = grads(out, dout, inp)
    return dict(inp=inp, out=out, dout=dout, dinp=dinp)


def gelu_exact():
    inp = leaf(N, C, lo=-6.0, hi=6.0)
    out = F.gelu(inp)  # approximate="none": 0.5 x (1 + erf(x / sqrt 2)), as nanoGPT's nn.GELU()
    dout = torch.randn(N, C)
    (dinp,) = grads(out, dout, inp)
    return dict(inp=inp, out=out, dout=dout, dinp=dinp)


def softmax():
    x = torch.rand(N, C) * 8.0 - 4.0
    for n in range(N):  # masked entries, as attention's causal mask leaves them
        if n % 3:
            x[n, C - (n % 5) - 1:] = float("-inf")
    inp = x.requires_grad_(True)
    out = F.softmax(inp, dim=-1)
    dout = torch.randn(N, C)
    (dinp,) = grads(out, dout, inp)
    return dict(inp=inp, out=out, dout=dout, dinp=dinp)


def residual():
    a, b = leaf(N, C), leaf(N, C)
    out = a + b
    dout = torch.randn(N, C)
    da, db = grads(out, dout, a, b)
    return dict(a=a, b=b, out=out, dout=dout, da=da, db=db)


def dropout():
    p = 0.3
    inp = leaf(N, C)
    keep = torch.bernoulli(torch.full((N, C), 1.0 - p))
    # What torch's dropout does with its own mask: input * mask * (1 / (1 - p)).
    out = inp * keep * (1.0 / (1.0 - p))
    dout = torch.randn(N, C)
    (dinp,) = grads(out, dout, inp)
    return dict(inp=inp, keep=keep, p=torch.tensor([p], dtype=torch.float64), out=out, dout=dout,
                dinp=dinp)


def causal_attention(qkv, drop):
    """nanoGPT's CausalSelfAttention after c_attn (slow path), with an optional dropout mask."""
    q, k, v = qkv.split(C, dim=2)
    q = q.view(B, T, NH, HS).transpose(1, 2)  # (B, NH, T, HS)
    k = k.view(B, T, NH, HS).transpose(1, 2)
    v = v.view(B, T, NH, HS).transpose(1, 2)
    att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(HS))  # (B, NH, T, T)
    mask = torch.tril(torch.ones(T, T)).view(1, 1, T, T)
    preatt = att.masked_fill(mask == 0, float("-inf"))
    att = F.softmax(preatt, dim=-1)
    a = att * drop if drop is not None else att
    y = a @ v  # (B, NH, T, HS)
    y = y.transpose(1, 2).contiguous().view(B, T, C)  # heads side by side
    return y, preatt, att


def attention():
    qkv = leaf(B, T, 3 * C, lo=-2.0, hi=2.0)
    p = 0.2
    drop = torch.bernoulli(torch.full((B, NH, T, T), 1.0 - p)) * (1.0 / (1.0 - p))
    dout = torch.randn(B, T, C)
    out, preatt, att = causal_attention(qkv, None)
    (dqkv,) = grads(out, dout, qkv)
    out_drop, _, _ = causal_attention(qkv, drop)
    (dqkv_drop,) = grads(out_drop, dout, qkv)
    return dict(qkv=qkv, drop=drop, dout=dout, out=out, preatt=preatt, att=att, dqkv=dqkv,
                out_drop=out_drop, dqkv_drop=dqkv_drop)


def crossentropy():
    logits = leaf(N, V, lo=-4.0, hi=4.0)
    targets = torch.randint(0, V, (N,), dtype=torch.int64)
    loss = F.cross_entropy(logits, targets)  # mean over N
    (dlogits,) = grads(loss, torch.tensor(1.0), logits)
    losses = F.cross_entropy(logits, targets, reduction="none")  # (N,)
    dlosses = torch.randn(N)
    (dlogits_rows,) = grads(losses, dlosses, logits)
    probs = F.softmax(logits, dim=-1)
    return dict(logits=logits, targets=targets.to(torch.int32), loss=loss.reshape(1),
                losses=losses, probs=probs, dlogits=dlogits, dlosses=dlosses,
                dlogits_rows=dlogits_rows)


def adamw():
    n, steps = 37, 5
    lr, beta1, beta2, eps, wd = 1e-2, 0.9, 0.95, 1e-8, 0.1
    param = torch.nn.Parameter(torch.randn(n))
    param0 = param.detach().clone()
    grads_ = torch.randn(steps, n)
    grads_[2, :5] = 0.0  # zero gradients: only decay and momentum move these
    opt = torch.optim.AdamW([param], lr=lr, betas=(beta1, beta2), eps=eps, weight_decay=wd)
    after = []
    for s in range(steps):
        param.grad = grads_[s].clone()
        opt.step()
        after.append(param.detach().clone())
    st = opt.state[param]
    return dict(param0=param0, grads=grads_, params=torch.stack(after),
                exp_avg=st["exp_avg"], exp_avg_sq=st["exp_avg_sq"],
                hyper=torch.tensor([lr, beta1, beta2, eps, wd], dtype=torch.float64))


# Appended ones go last: each kernel's seed is 1000 + its index here.
KERNELS = [encoder, matmul, layernorm, relu, gelu, softmax, residual, dropout, attention,
           crossentropy, adamw, gelu_exact]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--out", default=os.path.join(here, "..", "tests", "fixtures", "kernels"))
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.set_num_threads(1)
    for i, make in enumerate(KERNELS):
        torch.manual_seed(1000 + i)
        tensors = make()
        meta = {"generator": "tools/make_kernel_fixtures.py", "torch": torch.__version__,
                "B": B, "T": T, "C": C, "NH": NH, "OC": OC, "V": V}
        path = os.path.join(args.out, make.__name__ + ".safetensors")
        safetensors_io.save(path, {k: v.detach() for k, v in tensors.items()}, meta)
        print(f"wrote {os.path.relpath(path)} ({len(tensors)} tensors)")


if __name__ == "__main__":
    main()
