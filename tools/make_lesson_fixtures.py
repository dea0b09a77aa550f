#!/usr/bin/python3
"""make_lesson_fixtures.py: runs the PyTorch code of every `scratchgpt lesson` and records what it
prints, so tests/e2e/lesson_test.cpp can compare the C++ lessons with PyTorch string for string.

The code below follows Karpathy's "Let's build GPT" notebook/gpt.py and Raschka's "Build a Large
Language Model from Scratch" chapter 3, with the same seeds and the same call order.

Writes, under tests/fixtures/lessons/:
  lessons.json          {lesson: [{"kind": "tensor"|"text", "text": str}, ...]} in print order;
                        "tensor" items are str(tensor) (or str(torch.Size)), "text" items are
                        whole lines the lesson must print.
  <lesson>.txt          the full PyTorch output, for people.
  print_cases.*         tensors of many formats and their str(), for tests/stones/print_test.cpp.
  modules/*.safetensors weights, input, upstream gradient, output and every gradient of each
                        stepping-stone module, for tests/stones/stones_pytorch_test.cpp.

  lessons_shapes.json   [{"lesson", "flags", "items"}]: the lecture's lessons again at other sizes
                        and seeds (SHAPES), and head's --trace; shapes.txt: their output, for people.

Run with Debian's PyTorch (python3-torch 1.13), from the repository root:
  /usr/bin/python3 tools/make_lesson_fixtures.py                 # everything
  /usr/bin/python3 tools/make_lesson_fixtures.py --shapes-only   # lessons_shapes.json, shapes.txt
LESSON_FIXTURES_OUT=DIR writes elsewhere (to compare with the committed files).
"""
import io
import json
import os
import sys
from contextlib import redirect_stdout

import numpy as np
import torch
import torch.nn as nn
from torch.nn import functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import safetensors_io  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.environ.get("LESSON_FIXTURES_OUT", os.path.join(ROOT, "tests", "fixtures", "lessons"))

RASCHKA_INPUTS = [[0.43, 0.15, 0.89],  # Your     (x^1)
                  [0.55, 0.87, 0.66],  # journey  (x^2)
                  [0.57, 0.85, 0.64],  # starts   (x^3)
                  [0.22, 0.58, 0.33],  # with     (x^4)
                  [0.77, 0.25, 0.10],  # one      (x^5)
                  [0.05, 0.80, 0.55]]  # step     (x^6)


class Rec:
    """Prints like the notebooks and records every tensor / chosen line in order."""

    def __init__(self):
        self.items = []

    def t(self, label, x, ulp=False):
        """ulp: a sum of weights that is 1 up to its last bit (PyTorch's vectorised Sleef exp and
        libm's differ there, and PyTorch's own sum of a few floats is not the same from one run
        to the next), which decides "1." versus "1.0000": compared by value."""
        s = str(x.detach() if torch.is_tensor(x) else x)
        print(f"{label} {s}" if label else s)
        self.items.append({"kind": "tensor_ulp" if ulp else "tensor", "text": s})

    def text(self, line):
        print(line)
        self.items.append({"kind": "text", "text": line})


# ---------------------------------------------------------------- the lecture: "Let's build GPT"

def load_text():
    with open(os.path.join(ROOT, "data", "tinyshakespeare.txt"), "r", encoding="utf-8") as f:
        return f.read()


def lesson_bigram(r):
    text = load_text()
    r.text(f"length of dataset in characters: {len(text)}")
    chars = sorted(list(set(text)))
    vocab_size = len(chars)
    r.text("".join(chars))
    r.text(f"vocab_size: {vocab_size}")
    stoi = {ch: i for i, ch in enumerate(chars)}
    itos = {i: ch for i, ch in enumerate(chars)}
    encode = lambda s: [stoi[c] for c in s]  # noqa: E731
    decode = lambda l: "".join([itos[i] for i in l])  # noqa: E731
    r.text(str(encode("hii there")))
    r.text(decode(encode("hii there")))
    data = torch.tensor(encode(text), dtype=torch.long)
    r.t("data.shape:", data.shape)
    r.t("data[:100]:", data[:100])
    n = int(0.9 * len(data))
    train_data = data[:n]
    block_size = 8
    r.t("train_data[:block_size+1]:", train_data[:block_size + 1])
    x = train_data[:block_size]
    y = train_data[1:block_size + 1]
    for t in range(block_size):
        context = x[:t + 1]
        target = y[t]
        r.t(None, context)
        r.t(None, target)
    torch.manual_seed(1337)
    batch_size = 4
    ix = torch.randint(len(train_data) - block_size, (batch_size,))
    xb = torch.stack([train_data[i:i + block_size] for i in ix])
    yb = torch.stack([train_data[i + 1:i + block_size + 1] for i in ix])
    r.t("inputs:", xb.shape)
    r.t(None, xb)
    r.t("targets:", yb.shape)
    r.t(None, yb)

    torch.manual_seed(1337)

    class BigramLanguageModel(nn.Module):
        def __init__(self, vocab_size):
            super().__init__()
            self.token_embedding_table = nn.Embedding(vocab_size, vocab_size)

        def forward(self, idx, targets=None):
            logits = self.token_embedding_table(idx)  # (B,T,C)
            if targets is None:
                return logits, None
            B, T, C = logits.shape
            logits = logits.view(B * T, C)
            targets = targets.view(B * T)
            return logits, F.cross_entropy(logits, targets)

        def generate(self, idx, max_new_tokens):
            for _ in range(max_new_tokens):
                logits, _ = self(idx)
                logits = logits[:, -1, :]  # (B, C)
                probs = F.softmax(logits, dim=-1)
                idx_next = torch.multinomial(probs, num_samples=1)  # (B, 1)
                idx = torch.cat((idx, idx_next), dim=1)
            return idx

    m = BigramLanguageModel(vocab_size)
    logits, loss = m(xb, yb)
    r.t("logits.shape:", logits.shape)
    r.t("loss:", loss)
    sample = decode(m.generate(idx=torch.zeros((1, 1), dtype=torch.long), max_new_tokens=100)[0].tolist())
    for line in sample.split("\n"):
        r.text(line)


def lesson_averaging(r, B=4, T=8, C=2, seed=1337):
    torch.manual_seed(seed)
    x = torch.randn(B, T, C)
    r.t("x.shape:", x.shape)
    xbow = torch.zeros((B, T, C))
    for b in range(B):
        for t in range(T):
            xprev = x[b, :t + 1]  # (t,C)
            xbow[b, t] = torch.mean(xprev, 0)
    r.t("x[0]:", x[0])
    r.t("xbow[0]:", xbow[0])

    torch.manual_seed(42)
    a = torch.tril(torch.ones(3, 3))
    a = a / torch.sum(a, 1, keepdim=True)
    b = torch.randint(0, 10, (3, 2)).float()
    c = a @ b
    r.t("a=", a)
    r.t("b=", b)
    r.t("c=", c)

    wei = torch.tril(torch.ones(T, T))
    wei = wei / wei.sum(1, keepdim=True)
    xbow2 = wei @ x  # (B, T, T) @ (B, T, C) ----> (B, T, C)
    r.t("wei:", wei)
    r.t("xbow2[0]:", xbow2[0])
    r.text(f"allclose(xbow, xbow2): {torch.allclose(xbow, xbow2)}")

    tril = torch.tril(torch.ones(T, T))
    wei = torch.zeros((T, T))
    wei = wei.masked_fill(tril == 0, float("-inf"))
    r.t("wei (masked):", wei)
    wei = F.softmax(wei, dim=-1)
    r.t("wei (softmax):", wei)
    xbow3 = wei @ x
    r.t("xbow3[0]:", xbow3[0])
    r.text(f"allclose(xbow, xbow3): {torch.allclose(xbow, xbow3)}")


def lesson_positional(r, B=2, T=4, C=4, block_size=8, seed=1337):
    torch.manual_seed(seed)
    vocab_size, n_embd = 10, C
    token_embedding_table = nn.Embedding(vocab_size, n_embd)
    position_embedding_table = nn.Embedding(block_size, n_embd)
    # Row 0: token 5 at every position; row b > 0 alternates b and b + 1 (mod 10): the lecture's
    # [[5, 5, 5, 5], [1, 2, 1, 2]] at B = 2, T = 4.
    idx = torch.tensor([[5 if b == 0 else (b + t % 2) % vocab_size for t in range(T)]
                        for b in range(B)])
    tok_emb = token_embedding_table(idx)  # (B,T,C)
    pos_emb = position_embedding_table(torch.arange(T))  # (T,C)
    x = tok_emb + pos_emb  # (B,T,C)
    r.t("idx:", idx)
    r.t("tok_emb.shape:", tok_emb.shape)
    r.t("tok_emb[0]:", tok_emb[0])
    r.t("pos_emb.shape:", pos_emb.shape)
    r.t("pos_emb:", pos_emb)
    r.t("x.shape:", x.shape)
    r.t("x[0]:", x[0])
    if B > 1:
        r.t("x[1]:", x[1])


def trace_head(r, x, key, query, value, head_size):
    """--trace: the scaled Head of gpt.py on x, every intermediate of batch element 0."""
    B, T, C = x.shape
    k = key(x)  # (B, T, hs)
    q = query(x)  # (B, T, hs)
    v = value(x)  # (B, T, hs)
    r.t("x[0]:", x[0])
    r.t("k[0]:", k[0])
    r.t("q[0]:", q[0])
    r.t("v[0]:", v[0])
    wei = q @ k.transpose(-2, -1)  # (B, T, T)
    r.t("wei = q @ k.transpose(-2, -1) [0]:", wei[0])
    scale = head_size**-0.5
    r.t("scale = head_size**-0.5:", torch.tensor(scale))
    wei = wei * scale
    r.t("wei * scale [0]:", wei[0])
    tril = torch.tril(torch.ones(T, T))
    r.t("tril = torch.tril(torch.ones(T, T)):", tril)
    wei = wei.masked_fill(tril == 0, float("-inf"))
    r.t("wei.masked_fill(tril == 0, float('-inf')) [0]:", wei[0])
    wei = F.softmax(wei, dim=-1)
    r.t("F.softmax(wei, dim=-1) [0]:", wei[0])
    out = wei @ v
    r.t("out = wei @ v [0]:", out[0])


def lesson_head(r, B=4, T=8, C=32, head_size=16, seed=1337, trace=False):
    torch.manual_seed(seed)
    x = torch.randn(B, T, C)  # B, T, C = batch, time, channels
    key = nn.Linear(C, head_size, bias=False)
    query = nn.Linear(C, head_size, bias=False)
    value = nn.Linear(C, head_size, bias=False)
    if trace:  # --trace: the scaled Head of gpt.py, every intermediate of batch element 0
        trace_head(r, x, key, query, value, head_size)
        return
    k = key(x)  # (B, T, 16)
    q = query(x)  # (B, T, 16)
    wei = q @ k.transpose(-2, -1)  # (B, T, 16) @ (B, 16, T) ---> (B, T, T)
    tril = torch.tril(torch.ones(T, T))
    wei = wei.masked_fill(tril == 0, float("-inf"))
    wei = F.softmax(wei, dim=-1)
    v = value(x)
    out = wei @ v
    r.t("out.shape:", out.shape)
    r.t("wei[0] (unscaled):", wei[0])

    wei = q @ k.transpose(-2, -1) * head_size**-0.5
    wei = wei.masked_fill(tril == 0, float("-inf"))
    wei = F.softmax(wei, dim=-1)
    out = wei @ v
    r.t("wei[0] (scaled):", wei[0])
    # out[0] is not printed: some of its entries are sums of 16 products that nearly cancel
    # (e.g. 6.6e-04), and PyTorch's BLAS adds them in another order, so the 5th significant
    # digit of scientific notation can differ. Its first row is printed instead.
    r.t("out[0, 0, :4]:", out[0, 0, :4])

    k = torch.randn(B, T, head_size)
    q = torch.randn(B, T, head_size)
    wei = q @ k.transpose(-2, -1) * head_size**-0.5
    r.t("k.var():", k.var())
    r.t("q.var():", q.var())
    r.t("wei.var():", wei.var())
    r.t("softmax:", torch.softmax(torch.tensor([0.1, -0.2, 0.3, -0.2, 0.5]), dim=-1))
    r.t("softmax(8x):", torch.softmax(torch.tensor([0.1, -0.2, 0.3, -0.2, 0.5]) * 8, dim=-1))


# The lecture's modules (gpt.py), for the block lesson and the module fixtures.
class Head(nn.Module):
    def __init__(self, n_embd, head_size, block_size, dropout):
        super().__init__()
        self.key = nn.Linear(n_embd, head_size, bias=False)
        self.query = nn.Linear(n_embd, head_size, bias=False)
        self.value = nn.Linear(n_embd, head_size, bias=False)
        self.register_buffer("tril", torch.tril(torch.ones(block_size, block_size)))
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        B, T, C = x.shape
        k = self.key(x)  # (B,T,hs)
        q = self.query(x)  # (B,T,hs)
        wei = q @ k.transpose(-2, -1) * k.shape[-1]**-0.5  # (B, T, T)
        wei = wei.masked_fill(self.tril[:T, :T] == 0, float("-inf"))
        wei = F.softmax(wei, dim=-1)
        wei = self.dropout(wei)
        v = self.value(x)  # (B,T,hs)
        return wei @ v  # (B, T, hs)


class LectureMultiHeadAttention(nn.Module):
    def __init__(self, n_embd, num_heads, head_size, block_size, dropout):
        super().__init__()
        self.heads = nn.ModuleList([Head(n_embd, head_size, block_size, dropout)
                                    for _ in range(num_heads)])
        self.proj = nn.Linear(head_size * num_heads, n_embd)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        out = torch.cat([h(x) for h in self.heads], dim=-1)
        return self.dropout(self.proj(out))


class FeedForward(nn.Module):
    def __init__(self, n_embd, dropout):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(n_embd, 4 * n_embd), nn.ReLU(),
                                 nn.Linear(4 * n_embd, n_embd), nn.Dropout(dropout))

    def forward(self, x):
        return self.net(x)


class Block(nn.Module):
    def __init__(self, n_embd, n_head, block_size, dropout):
        super().__init__()
        head_size = n_embd // n_head
        self.sa = LectureMultiHeadAttention(n_embd, n_head, head_size, block_size, dropout)
        self.ffwd = FeedForward(n_embd, dropout)
        self.ln1 = nn.LayerNorm(n_embd)
        self.ln2 = nn.LayerNorm(n_embd)

    def forward(self, x):
        x = x + self.sa(self.ln1(x))
        x = x + self.ffwd(self.ln2(x))
        return x


def lesson_block(r, B=2, T=4, C=8, n_head=2, block_size=8, seed=1337, trace=False):
    torch.manual_seed(seed)
    n_embd = C
    block = Block(n_embd, n_head, block_size, 0.0)
    x = torch.randn(B, T, n_embd)
    if trace:  # --trace: the first head of sa on ln1(x)
        head = block.sa.heads[0]
        trace_head(r, block.ln1(x), head.key, head.query, head.value, n_embd // n_head)
        return
    r.t("x[0]:", x[0])
    h = block.ln1(x)
    r.t("ln1(x)[0]:", h[0])
    sa = block.sa(h)
    r.t("sa(ln1(x))[0]:", sa[0])
    x1 = x + sa
    r.t("x + sa(ln1(x)) [0]:", x1[0])
    ff = block.ffwd(block.ln2(x1))
    r.t("ffwd(ln2(x))[0]:", ff[0])
    out = block(x)
    r.t("out[0]:", out[0])
    r.t("out.shape:", out.shape)
    r.t("engine Block(x)[0]:", out[0])  # scratchgpt's fused-qkv Block with the same weights


# ------------------------------------------------------------- the book: Raschka, chapter 3

def book_inputs(r, T=None, d_in=None, seed=None):
    """The book's sentence, or (any of T, d_in, seed given) T random embeddings of size d_in."""
    if T is None and d_in is None and seed is None:
        return torch.tensor(RASCHKA_INPUTS)
    torch.manual_seed(123 if seed is None else seed)
    inputs = torch.rand(6 if T is None else T, 3 if d_in is None else d_in)
    r.t("inputs:", inputs)
    return inputs


def lesson_simplified_attention(r, T=None, d_in=None, seed=None):
    inputs = book_inputs(r, T, d_in, seed)
    ulp = not (T is None and d_in is None and seed is None)  # the book's own sums stay exact
    T = inputs.shape[0]
    query = inputs[1]  # 2nd input token is the query
    attn_scores_2 = torch.empty(inputs.shape[0])
    for i, x_i in enumerate(inputs):
        attn_scores_2[i] = torch.dot(x_i, query)
    r.t("attn_scores_2:", attn_scores_2)
    attn_weights_2_tmp = attn_scores_2 / attn_scores_2.sum()
    r.t("Attention weights:", attn_weights_2_tmp)
    r.t("Sum:", attn_weights_2_tmp.sum(), ulp)

    def softmax_naive(x):
        return torch.exp(x) / torch.exp(x).sum(dim=0)

    attn_weights_2_naive = softmax_naive(attn_scores_2)
    r.t("Attention weights:", attn_weights_2_naive)
    r.t("Sum:", attn_weights_2_naive.sum(), ulp)
    attn_weights_2 = torch.softmax(attn_scores_2, dim=0)
    r.t("Attention weights:", attn_weights_2)
    r.t("Sum:", attn_weights_2.sum(), ulp)
    context_vec_2 = torch.zeros(query.shape)
    for i, x_i in enumerate(inputs):
        context_vec_2 += attn_weights_2[i] * x_i
    r.t("context_vec_2:", context_vec_2)

    attn_scores = torch.empty(T, T)
    for i, x_i in enumerate(inputs):
        for j, x_j in enumerate(inputs):
            attn_scores[i, j] = torch.dot(x_i, x_j)
    r.t("attn_scores (loops):", attn_scores)
    attn_scores = inputs @ inputs.T
    r.t("attn_scores (inputs @ inputs.T):", attn_scores)
    attn_weights = torch.softmax(attn_scores, dim=-1)
    r.t("attn_weights:", attn_weights)
    r.t("All row sums:", attn_weights.sum(dim=-1), ulp)
    all_context_vecs = attn_weights @ inputs
    r.t("all_context_vecs:", all_context_vecs)
    r.t("Previous 2nd context vector:", context_vec_2)


class SelfAttention_v1(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.W_query = nn.Parameter(torch.rand(d_in, d_out))
        self.W_key = nn.Parameter(torch.rand(d_in, d_out))
        self.W_value = nn.Parameter(torch.rand(d_in, d_out))

    def forward(self, x):
        keys = x @ self.W_key
        queries = x @ self.W_query
        values = x @ self.W_value
        attn_scores = queries @ keys.T  # omega
        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
        return attn_weights @ values


class SelfAttention_v2(nn.Module):
    def __init__(self, d_in, d_out, qkv_bias=False):
        super().__init__()
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)

    def forward(self, x):
        keys = self.W_key(x)
        queries = self.W_query(x)
        values = self.W_value(x)
        attn_scores = queries @ keys.T
        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
        return attn_weights @ values


class CausalAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, qkv_bias=False):
        super().__init__()
        self.d_out = d_out
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length),
                                                diagonal=1))

    def forward(self, x):
        b, num_tokens, d_in = x.shape
        keys = self.W_key(x)
        queries = self.W_query(x)
        values = self.W_value(x)
        attn_scores = queries @ keys.transpose(1, 2)
        attn_scores.masked_fill_(self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)
        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
        attn_weights = self.dropout(attn_weights)
        return attn_weights @ values


class MultiHeadAttentionWrapper(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        self.heads = nn.ModuleList([CausalAttention(d_in, d_out, context_length, dropout, qkv_bias)
                                    for _ in range(num_heads)])

    def forward(self, x):
        return torch.cat([head(x) for head in self.heads], dim=-1)


class MultiHeadAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        assert d_out % num_heads == 0, "d_out must be divisible by num_heads"
        self.d_out = d_out
        self.num_heads = num_heads
        self.head_dim = d_out // num_heads
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length),
                                                diagonal=1))

    def forward(self, x):
        b, num_tokens, d_in = x.shape
        keys = self.W_key(x)
        queries = self.W_query(x)
        values = self.W_value(x)
        keys = keys.view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        queries = queries.view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        values = values.view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        attn_scores = queries @ keys.transpose(2, 3)
        mask_bool = self.mask.bool()[:num_tokens, :num_tokens]
        attn_scores.masked_fill_(mask_bool, -torch.inf)
        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
        attn_weights = self.dropout(attn_weights)
        context_vec = (attn_weights @ values).transpose(1, 2)
        context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)
        return self.out_proj(context_vec)


def lesson_trainable_weights(r, T=None, d_in=None, d_out=2, seed=None):
    inputs = book_inputs(r, T, d_in, seed)
    x_2 = inputs[1]
    d_in = inputs.shape[1]
    torch.manual_seed(123)
    W_query = torch.nn.Parameter(torch.rand(d_in, d_out), requires_grad=False)
    W_key = torch.nn.Parameter(torch.rand(d_in, d_out), requires_grad=False)
    W_value = torch.nn.Parameter(torch.rand(d_in, d_out), requires_grad=False)
    r.t("W_query:", W_query)
    r.t("W_key:", W_key)
    r.t("W_value:", W_value)
    query_2 = x_2 @ W_query
    key_2 = x_2 @ W_key  # noqa: F841
    value_2 = x_2 @ W_value  # noqa: F841
    r.t("query_2:", query_2)
    keys = inputs @ W_key
    values = inputs @ W_value
    r.t("keys.shape:", keys.shape)
    r.t("values.shape:", values.shape)
    keys_2 = keys[1]
    attn_score_22 = query_2.dot(keys_2)
    r.t("attn_score_22:", attn_score_22)
    attn_scores_2 = query_2 @ keys.T
    r.t("attn_scores_2:", attn_scores_2)
    d_k = keys.shape[-1]
    attn_weights_2 = torch.softmax(attn_scores_2 / d_k**0.5, dim=-1)
    r.t("attn_weights_2:", attn_weights_2)
    context_vec_2 = attn_weights_2 @ values
    r.t("context_vec_2:", context_vec_2)

    torch.manual_seed(123)
    sa_v1 = SelfAttention_v1(d_in, d_out)
    r.t("SelfAttention_v1:", sa_v1(inputs))
    torch.manual_seed(789)
    sa_v2 = SelfAttention_v2(d_in, d_out)
    r.t("SelfAttention_v2:", sa_v2(inputs))


def lesson_causal_attention(r, T=None, d_in=None, d_out=2, seed=None, trace=False):
    inputs = book_inputs(r, T, d_in, seed)
    T, d_in = inputs.shape
    if trace:  # --trace: the CausalAttention of the last step, batch element 0, in the book's order
        x = torch.stack((inputs, inputs), dim=0)
        torch.manual_seed(123)
        ca = CausalAttention(d_in, d_out, T, 0.0)
        keys = ca.W_key(x)
        queries = ca.W_query(x)
        values = ca.W_value(x)
        r.t("x[0]:", x[0])
        r.t("keys[0]:", keys[0])
        r.t("queries[0]:", queries[0])
        r.t("values[0]:", values[0])
        attn_scores = queries @ keys.transpose(1, 2)
        r.t("attn_scores = queries @ keys.transpose(1, 2) [0]:", attn_scores[0])
        r.t("mask = torch.triu(torch.ones(T, T), diagonal=1):", ca.mask[:T, :T])
        attn_scores.masked_fill_(ca.mask.bool()[:T, :T], -torch.inf)
        r.t("attn_scores.masked_fill_(mask.bool(), -torch.inf) [0]:", attn_scores[0])
        scale = keys.shape[-1]**0.5
        r.t("scale = keys.shape[-1]**0.5:", torch.tensor(scale))
        scaled = attn_scores / scale
        r.t("attn_scores / keys.shape[-1]**0.5 [0]:", scaled[0])
        attn_weights = torch.softmax(scaled, dim=-1)
        r.t("attn_weights = torch.softmax(..., dim=-1) [0]:", attn_weights[0])
        context_vec = attn_weights @ values
        r.t("context_vec = attn_weights @ values [0]:", context_vec[0])
        return
    torch.manual_seed(789)
    sa_v2 = SelfAttention_v2(d_in, d_out)
    queries = sa_v2.W_query(inputs)
    keys = sa_v2.W_key(inputs)
    attn_scores = queries @ keys.T
    attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
    r.t("attn_weights:", attn_weights)
    context_length = attn_scores.shape[0]
    mask_simple = torch.tril(torch.ones(context_length, context_length))
    r.t("mask_simple:", mask_simple)
    masked_simple = attn_weights * mask_simple
    r.t("masked_simple:", masked_simple)
    row_sums = masked_simple.sum(dim=-1, keepdim=True)
    masked_simple_norm = masked_simple / row_sums
    r.t("masked_simple_norm:", masked_simple_norm)
    mask = torch.triu(torch.ones(context_length, context_length), diagonal=1)
    masked = attn_scores.masked_fill(mask.bool(), -torch.inf)
    r.t("masked:", masked)
    attn_weights = torch.softmax(masked / keys.shape[-1]**0.5, dim=1)
    r.t("attn_weights:", attn_weights)

    torch.manual_seed(123)
    dropout = torch.nn.Dropout(0.5)
    example = torch.ones(T, T)
    r.t("dropout(example):", dropout(example))
    torch.manual_seed(123)
    r.t("dropout(attn_weights):", dropout(attn_weights))

    batch = torch.stack((inputs, inputs), dim=0)
    r.t("batch.shape:", batch.shape)
    torch.manual_seed(123)
    context_length = batch.shape[1]
    ca = CausalAttention(d_in, d_out, context_length, 0.0)
    context_vecs = ca(batch)
    r.t("context_vecs:", context_vecs)
    r.t("context_vecs.shape:", context_vecs.shape)


def lesson_multi_head(r, T=None, d_in=None, d_out=2, n_head=2, seed=None, trace=False):
    inputs = book_inputs(r, T, d_in, seed)
    batch = torch.stack((inputs, inputs), dim=0)
    if trace:  # --trace: the last step's MultiHeadAttention, batch element 0, head 0
        T, d_in = inputs.shape
        torch.manual_seed(123)
        mha = MultiHeadAttention(d_in, d_out, T, 0.0, num_heads=n_head)
        x = batch
        b, num_tokens, _ = x.shape
        keys = mha.W_key(x)
        queries = mha.W_query(x)
        values = mha.W_value(x)
        r.t("x[0]:", x[0])
        r.t("keys[0]:", keys[0])
        r.t("queries[0]:", queries[0])
        r.t("values[0]:", values[0])
        keys = keys.view(b, num_tokens, mha.num_heads, mha.head_dim).transpose(1, 2)
        queries = queries.view(b, num_tokens, mha.num_heads, mha.head_dim).transpose(1, 2)
        values = values.view(b, num_tokens, mha.num_heads, mha.head_dim).transpose(1, 2)
        r.t("keys[0, 0]:", keys[0, 0])
        r.t("queries[0, 0]:", queries[0, 0])
        r.t("values[0, 0]:", values[0, 0])
        attn_scores = queries @ keys.transpose(2, 3)
        r.t("attn_scores = queries @ keys.transpose(2, 3) [0, 0]:", attn_scores[0, 0])
        r.t("mask = torch.triu(torch.ones(T, T), diagonal=1):", mha.mask[:T, :T])
        attn_scores.masked_fill_(mha.mask.bool()[:num_tokens, :num_tokens], -torch.inf)
        r.t("attn_scores.masked_fill_(mask_bool, -torch.inf) [0, 0]:", attn_scores[0, 0])
        scale = keys.shape[-1]**0.5
        r.t("scale = keys.shape[-1]**0.5:", torch.tensor(scale))
        scaled = attn_scores / scale
        r.t("attn_scores / keys.shape[-1]**0.5 [0, 0]:", scaled[0, 0])
        attn_weights = torch.softmax(scaled, dim=-1)
        r.t("attn_weights = torch.softmax(..., dim=-1) [0, 0]:", attn_weights[0, 0])
        ctx = attn_weights @ values
        r.t("(attn_weights @ values) [0, 0]:", ctx[0, 0])
        context_vec = mha.out_proj(ctx.transpose(1, 2).contiguous().view(b, num_tokens, mha.d_out))
        r.t("context_vec = self.out_proj(context_vec) [0]:", context_vec[0])
        return
    torch.manual_seed(123)
    context_length = batch.shape[1]
    d_in = inputs.shape[1]
    mha = MultiHeadAttentionWrapper(d_in, d_out, context_length, 0.0, num_heads=n_head)
    context_vecs = mha(batch)
    r.t("context_vecs:", context_vecs)
    r.t("context_vecs.shape:", context_vecs.shape)

    # The batched matrix multiplication behind the split heads: (b, num_heads, T, head_dim).
    a = torch.tensor([[[[0.2745, 0.6584, 0.2775, 0.8573],
                        [0.8993, 0.0390, 0.9268, 0.7388],
                        [0.7179, 0.7058, 0.9156, 0.4340]],
                       [[0.0772, 0.3565, 0.1479, 0.5331],
                        [0.4066, 0.2318, 0.4545, 0.9737],
                        [0.4606, 0.5159, 0.4220, 0.5786]]]])
    r.t("a @ a.transpose(2, 3):", a @ a.transpose(2, 3))
    first_head = a[0, 0, :, :]
    r.t("First head:", first_head @ first_head.T)
    second_head = a[0, 1, :, :]
    r.t("Second head:", second_head @ second_head.T)

    torch.manual_seed(123)
    batch_size, context_length, d_in = batch.shape
    mha = MultiHeadAttention(d_in, d_out, context_length, 0.0, num_heads=n_head)
    context_vecs = mha(batch)
    r.t("context_vecs:", context_vecs)
    r.t("context_vecs.shape:", context_vecs.shape)


# The lessons again at other sizes and seeds: (lesson, its command-line flags, keyword arguments).
# Written to lessons_shapes.json; lesson_test.cpp runs `scratchgpt lesson NAME FLAGS` for each.
# As at the texts' own sizes, shapes whose output holds a nearly cancelling sum are left out: PyTorch
# prints such a tensor in scientific notation, where BLAS's order of addition shows in the 5th
# digit (e.g. multi-head --d-out 6 --n-head 3 prints 5.4813e-06 where PyTorch has 5.5134e-06), and
# such digits of PyTorch's own can change from one run of this tool to the next (5.0648e-04 then
# 5.0651e-04 in head --B 2 --T 5 --C 6 --head-size 4 --seed 42 --trace): no run here prints in
# scientific notation.
SHAPES = [
    ("averaging", dict(B=1, T=2, C=3, seed=7)),
    ("averaging", dict(B=2, T=5, C=6, seed=42)),
    ("averaging", dict(B=3, T=1, C=1, seed=0)),
    ("averaging", dict(B=1, T=13, C=4, seed=2024)),
    ("positional", dict(B=1, T=2, C=3, seed=7)),
    ("positional", dict(B=3, T=5, C=6, seed=42)),
    ("positional", dict(B=2, T=16, C=2, block_size=16, seed=3)),
    ("head", dict(B=1, T=2, C=3, head_size=3, seed=7)),
    ("head", dict(B=2, T=5, C=6, head_size=4, seed=42)),
    ("head", dict(B=1, T=1, C=2, head_size=1, seed=5)),
    ("head", dict(B=3, T=11, C=8, head_size=2)),
    ("head", dict(B=1, T=2, C=3, head_size=3, trace=True)),
    ("head", dict(B=1, T=2, C=3, head_size=3, seed=7, trace=True)),
    ("head", dict(B=2, T=5, C=6, head_size=4, seed=44, trace=True)),
    ("block", dict(B=1, T=2, C=6, n_head=3, seed=7)),
    ("block", dict(B=2, T=5, C=12, n_head=2, seed=43)),
    ("block", dict(B=1, T=12, C=4, n_head=1, block_size=12, seed=0)),
    ("block", dict(B=1, T=3, C=6, n_head=2, seed=7, trace=True)),
    ("block", dict(trace=True)),
    ("simplified-attention", dict(T=2, d_in=3, seed=7)),
    ("simplified-attention", dict(T=5, d_in=6, seed=42)),
    ("simplified-attention", dict(seed=1)),
    ("trainable-weights", dict(T=2, d_in=3, d_out=3, seed=7)),
    ("trainable-weights", dict(T=5, d_in=6, d_out=4, seed=42)),
    ("trainable-weights", dict(d_out=1)),
    ("causal-attention", dict(T=2, d_in=3, seed=7)),
    ("causal-attention", dict(T=5, d_in=6, d_out=4, seed=42)),
    ("causal-attention", dict(T=9, d_in=4, d_out=3)),
    ("causal-attention", dict(trace=True)),
    ("causal-attention", dict(T=3, d_in=2, d_out=2, seed=7, trace=True)),
    ("multi-head", dict(T=2, d_in=3, d_out=3, n_head=3, seed=7)),
    ("multi-head", dict(T=5, d_in=6, d_out=4, n_head=2, seed=42)),
    ("multi-head", dict(d_out=4, n_head=2)),
    ("multi-head", dict(trace=True)),
    ("multi-head", dict(T=4, d_in=3, d_out=4, n_head=2, seed=7, trace=True)),
]


def shape_flags(kwargs):
    """dict(B=1, head_size=3, trace=True) -> "--B 1 --head-size 3 --trace"."""
    flags = []
    for k, v in kwargs.items():
        flag = "--" + k.replace("_", "-")
        flags.append(flag if v is True else f"{flag} {v}")
    return " ".join(flags)


LESSONS = [
    ("bigram", lesson_bigram),
    ("averaging", lesson_averaging),
    ("positional", lesson_positional),
    ("head", lesson_head),
    ("block", lesson_block),
    ("simplified-attention", lesson_simplified_attention),
    ("trainable-weights", lesson_trainable_weights),
    ("causal-attention", lesson_causal_attention),
    ("multi-head", lesson_multi_head),
]


# ------------------------------------------------------------------ print format test cases

def print_cases():
    rs = np.random.RandomState(0)
    f = lambda a: torch.tensor(np.asarray(a, dtype=np.float32))  # noqa: E731
    cases = {
        "scalar": f(4.878632),
        "scalar_one": f(1.0),
        "scalar_zero": f(0.0),
        "scalar_neg_small": f(-3.2e-6),
        "scalar_big": f(123456789.0),
        "vec": f([0.9544, 1.4950, 1.4754, 0.8434, 0.7070, 1.0865]),
        "vec_neg": f([-0.5, 0.25, -1.75]),
        "vec_wrap": f(rs.randn(30)),
        "vec_wrap_neg_wide": f(rs.randn(25) * 50),
        "vec_summarized": f(rs.rand(1500)),
        "raschka_inputs": f(RASCHKA_INPUTS),
        "mat_neg": f(rs.randn(4, 5)),
        "masked_inf": f([[0.2899, -np.inf, -np.inf], [0.4656, 0.1723, -np.inf],
                          [-0.1, 0.2, 0.3]]),
        "ones_tril": torch.tril(torch.ones(4, 4)),
        "int_valued": f([[2.0, 7.0], [6.0, 4.0], [6.0, 5.0]]),
        "int_valued_neg": f([[-2.0, 17.0], [0.0, 4.0]]),
        "int_valued_sci": f([1.0, 2000.0, 3.0]),
        "zeros": torch.zeros(2, 3),
        "with_nan": f([1.5, np.nan, -2.25]),
        "sci_small": f([1.0e-5, 0.5, 0.25]),
        "sci_ratio": f([0.5, 1234.5678, 2.0]),
        "sci_big": f([1.5e9, -2.0, 3.0]),
        "neg_zero": f([-0.0, 1.5]),
        "t3": f(rs.randn(2, 6, 2)),
        "t4": f(rs.randn(2, 2, 3, 2)),
        "t2_summarized": f(rs.randn(40, 65)),
        "t3_summarized": f(rs.randn(4, 300, 2)),
        "t2_summarized_cols": f(rs.randn(2, 600)),
        "tie_round": f([0.00005, 0.12345, 0.5]),
        "long_vec": torch.tensor(rs.randint(0, 65, size=100), dtype=torch.long),
        "long_mat": torch.tensor(rs.randint(0, 65, size=(4, 8)), dtype=torch.long),
        "long_neg": torch.tensor([[-3, 100], [7, 0]], dtype=torch.long),
        "long_scalar": torch.tensor(47, dtype=torch.long),
        "long_summarized": torch.tensor(rs.randint(0, 1000, size=2000), dtype=torch.long),
        "empty": torch.zeros(0),
    }
    strings = {k: str(v) for k, v in cases.items()}
    # safetensors_io stores 0-d tensors as shape [1]; the true shapes travel here.
    strings["__shapes__"] = {k: list(v.shape) for k, v in cases.items()}
    strings["size_3"] = str(torch.Size([4, 8, 32]))
    strings["size_1"] = str(torch.Size([6]))
    strings["size_0"] = str(torch.Size([]))
    return cases, strings


# ------------------------------------------------------------------ module fixtures

def module_fixture(name, module, x, seed):
    """Saves the module's weights, x, a random upstream gradient, the output and all gradients."""
    x = x.clone().requires_grad_(True)
    out = module(x)
    g = torch.Generator().manual_seed(seed)
    dout = torch.randn(out.shape, generator=g)
    (out * dout).sum().backward()
    tensors = {"x": x, "out": out, "dout": dout, "dx": x.grad}
    for pname, p in module.named_parameters():
        tensors["param." + pname] = p
        tensors["grad." + pname] = p.grad
    os.makedirs(os.path.join(OUT, "modules"), exist_ok=True)
    safetensors_io.save(os.path.join(OUT, "modules", name + ".safetensors"), tensors)


def seeded_fixture(name, make, x, seed):
    """torch.manual_seed(seed); m = make() (init draws); m(x) in training mode (dropout draws)."""
    torch.manual_seed(seed)
    module = make()
    module.train()
    with torch.no_grad():
        out = module(x)
    tensors = {"x": x, "out": out}
    for pname, p in module.named_parameters():
        tensors["param." + pname] = p
    safetensors_io.save(os.path.join(OUT, "modules", name + ".safetensors"), tensors)


def module_fixtures():
    g = torch.Generator().manual_seed(2024)
    inputs = torch.tensor(RASCHKA_INPUTS)
    batch = torch.stack((inputs, inputs * 0.5 - 0.1), dim=0)  # (2, 6, 3)
    torch.manual_seed(1)
    module_fixture("self_attention_v1", SelfAttention_v1(3, 2), inputs, 11)
    module_fixture("self_attention_v2", SelfAttention_v2(3, 2, qkv_bias=True), inputs, 12)
    module_fixture("causal_attention", CausalAttention(3, 2, 6, 0.0, qkv_bias=True), batch, 13)
    module_fixture("mha_wrapper", MultiHeadAttentionWrapper(3, 2, 6, 0.0, num_heads=3), batch, 14)
    module_fixture("multi_head_attention", MultiHeadAttention(3, 4, 6, 0.0, num_heads=2), batch, 15)
    xl = torch.randn(2, 5, 8, generator=g)
    module_fixture("head", Head(8, 4, 8, 0.0), xl, 16)
    module_fixture("lecture_mha", LectureMultiHeadAttention(8, 2, 4, 8, 0.0), xl, 17)
    module_fixture("feed_forward", FeedForward(8, 0.0), xl, 18)
    # Seeded construction + dropout in training mode: init order and dropout draws of each module.
    seeded_fixture("seeded_causal_attention", lambda: CausalAttention(3, 2, 6, 0.5), batch, 123)
    seeded_fixture("seeded_mha_wrapper",
                   lambda: MultiHeadAttentionWrapper(3, 2, 6, 0.5, num_heads=2), batch, 123)
    seeded_fixture("seeded_multi_head_attention",
                   lambda: MultiHeadAttention(3, 4, 6, 0.5, num_heads=2), batch, 123)
    seeded_fixture("seeded_head", lambda: Head(8, 4, 8, 0.3), xl, 1337)
    seeded_fixture("seeded_lecture_mha", lambda: LectureMultiHeadAttention(8, 2, 4, 8, 0.3), xl,
                   1337)
    seeded_fixture("seeded_feed_forward", lambda: FeedForward(8, 0.3), xl, 1337)


def write_shapes():
    """lessons_shapes.json and shapes.txt: the SHAPES runs."""
    fns = dict(LESSONS)
    shapes = []
    people = io.StringIO()
    for name, kwargs in SHAPES:
        r = Rec()
        buf = io.StringIO()
        with redirect_stdout(buf):
            with torch.no_grad():
                fns[name](r, **kwargs)
        flags = shape_flags(kwargs)
        shapes.append({"lesson": name, "flags": flags, "items": r.items})
        people.write(f"$ scratchgpt lesson {name} {flags}\n{buf.getvalue()}\n")
    with open(os.path.join(OUT, "lessons_shapes.json"), "w", encoding="utf-8") as fh:
        json.dump(shapes, fh, indent=1, ensure_ascii=False)
        fh.write("\n")
    with open(os.path.join(OUT, "shapes.txt"), "w", encoding="utf-8") as fh:
        fh.write(people.getvalue())


def main():
    os.makedirs(OUT, exist_ok=True)
    if "--shapes-only" in sys.argv[1:]:
        write_shapes()
        print(f"wrote {OUT}/lessons_shapes.json, shapes.txt")
        return
    recorded = {}
    for name, fn in LESSONS:
        r = Rec()
        buf = io.StringIO()
        with redirect_stdout(buf):
            with torch.no_grad():
                fn(r)
        recorded[name] = r.items
        with open(os.path.join(OUT, name + ".txt"), "w", encoding="utf-8") as fh:
            fh.write(buf.getvalue())
    with open(os.path.join(OUT, "lessons.json"), "w", encoding="utf-8") as fh:
        json.dump(recorded, fh, indent=1, ensure_ascii=False)
        fh.write("\n")
    write_shapes()

    cases, strings = print_cases()
    safetensors_io.save(os.path.join(OUT, "print_cases.safetensors"), cases)
    with open(os.path.join(OUT, "print_cases.json"), "w", encoding="utf-8") as fh:
        json.dump(strings, fh, indent=1)
        fh.write("\n")
    module_fixtures()
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
