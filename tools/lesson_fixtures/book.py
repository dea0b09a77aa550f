"""book.py: the PyTorch twins of the book's lessons (Raschka's "Build a Large Language Model from
Scratch", chapter 3, with its seeds and call order) and the book's modules (SelfAttention_v1/_v2,
CausalAttention, MultiHeadAttentionWrapper, MultiHeadAttention). Each lesson prints through a
record.Rec. Leaves out: recording and writing (record.py), what runs at which sizes (cases.py).
"""
import torch
import torch.nn as nn

RASCHKA_INPUTS = [[0.43, 0.15, 0.89],  # Your     (x^1)
                  [0.55, 0.87, 0.66],  # journey  (x^2)
                  [0.57, 0.85, 0.64],  # starts   (x^3)
                  [0.22, 0.58, 0.33],  # with     (x^4)
                  [0.77, 0.25, 0.10],  # one      (x^5)
                  [0.05, 0.80, 0.55]]  # step     (x^6)


def journey(T=None, d_in=None, seed=None, random_inputs=False):
    """True when the book's sentence is used: no --random-inputs, and T, d_in, seed are left out
    or the book's own 6, 3, 123 (`scratchgpt lesson`'s rule, lessons/lesson.h journey_inputs)."""
    return not random_inputs and (T or 6) == 6 and (d_in or 3) == 3 and (
        123 if seed is None else seed) == 123


def book_inputs(r, T=None, d_in=None, seed=None, random_inputs=False):
    """The book's sentence, or T random embeddings of size d_in (see journey)."""
    if journey(T, d_in, seed, random_inputs):
        return torch.tensor(RASCHKA_INPUTS)
    torch.manual_seed(123 if seed is None else seed)
    inputs = torch.rand(6 if T is None else T, 3 if d_in is None else d_in)
    r.t("inputs:", inputs)
    return inputs


def lesson_simplified_attention(r, T=None, d_in=None, seed=None, random_inputs=False):
    inputs = book_inputs(r, T, d_in, seed, random_inputs)
    ulp = not journey(T, d_in, seed, random_inputs)  # the book's own sums stay exact
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


def lesson_trainable_weights(r, T=None, d_in=None, d_out=2, seed=None, random_inputs=False):
    inputs = book_inputs(r, T, d_in, seed, random_inputs)
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


def lesson_causal_attention(r, T=None, d_in=None, d_out=2, seed=None, random_inputs=False,
                            trace=False):
    inputs = book_inputs(r, T, d_in, seed, random_inputs)
    T, d_in = inputs.shape
    if trace:  # --trace: the CausalAttention of the last step, batch element 0, in the book's order
        x = torch.stack((inputs, inputs), dim=0)
        torch.manual_seed(123)
        ca = CausalAttention(d_in, d_out, T, 0.0)
        keys = ca.W_key(x)
        queries = ca.W_query(x)
        values = ca.W_value(x)
        r.t("x[0]:", x[0])
        for name in ("W_query", "W_key", "W_value"):
            r.t(name + ".weight:", getattr(ca, name).weight)
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


def lesson_multi_head(r, T=None, d_in=None, d_out=2, n_head=2, seed=None, random_inputs=False,
                      trace=False):
    inputs = book_inputs(r, T, d_in, seed, random_inputs)
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
        for name in ("W_query", "W_key", "W_value", "out_proj"):
            r.t(name + ".weight:", getattr(mha, name).weight)
        r.t("out_proj.bias:", mha.out_proj.bias)
        r.t("keys[0]:", keys[0])
        r.t("queries[0]:", queries[0])
        r.t("values[0]:", values[0])
        keys = keys.view(b, num_tokens, mha.num_heads, mha.head_dim).transpose(1, 2)
        queries = queries.view(b, num_tokens, mha.num_heads, mha.head_dim).transpose(1, 2)
        values = values.view(b, num_tokens, mha.num_heads, mha.head_dim).transpose(1, 2)
        for h in range(mha.num_heads):  # the split: every head's slice
            r.t(f"keys[0, {h}]:", keys[0, h])
            r.t(f"queries[0, {h}]:", queries[0, h])
            r.t(f"values[0, {h}]:", values[0, h])
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
        for h in range(mha.num_heads):
            r.t(f"attn_weights = torch.softmax(..., dim=-1) [0, {h}]:", attn_weights[0, h])
        ctx = attn_weights @ values
        for h in range(mha.num_heads):
            r.t(f"(attn_weights @ values) [0, {h}]:", ctx[0, h])
        context_vec = ctx.transpose(1, 2).contiguous().view(b, num_tokens, mha.d_out)
        r.t("context_vec (heads concatenated) [0]:", context_vec[0])
        context_vec = mha.out_proj(context_vec)
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
