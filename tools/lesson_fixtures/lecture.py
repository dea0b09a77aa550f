"""lecture.py: the PyTorch twins of the lecture's lessons (Karpathy's "Let's build GPT" notebook
and gpt.py, with its seeds and call order), and the lecture's modules (Head, MultiHeadAttention,
FeedForward, Block) for the block lesson and the module fixtures. Each lesson prints through a
record.Rec. Leaves out: recording and writing (record.py), what runs at which sizes (cases.py).
"""
import os

import torch
import torch.nn as nn
from torch.nn import functional as F

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


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
    r.t("key.weight:", key.weight)
    r.t("query.weight:", query.weight)
    r.t("value.weight:", value.weight)
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


def lesson_head(r, B=4, T=8, C=32, head_size=16, seed=1337, order="key,query,value",
                trace=False):
    torch.manual_seed(seed)
    x = torch.randn(B, T, C)  # B, T, C = batch, time, channels
    # The lecture's Head creates key, query, value; seed 001's snippet query, key, value
    # (--order): the layers are created, and draw their weights, in the order given.
    layers = {name: nn.Linear(C, head_size, bias=False) for name in order.split(",")}
    key, query, value = layers["key"], layers["query"], layers["value"]
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
