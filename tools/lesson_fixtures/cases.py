"""cases.py: what the lesson fixtures record: the lessons in the order `scratchgpt lesson` lists
them, the lessons again at other sizes and seeds (SHAPES), the tensors of every print format, and
the stepping-stone modules whose outputs and gradients stones_pytorch_test compares.
Leaves out: the lessons' code (lecture.py, book.py) and the writing (record.py).
"""
import numpy as np
import torch

from . import record
from .book import (RASCHKA_INPUTS, CausalAttention, MultiHeadAttention, MultiHeadAttentionWrapper,
                   SelfAttention_v1, SelfAttention_v2, lesson_causal_attention, lesson_multi_head,
                   lesson_simplified_attention, lesson_trainable_weights)
from .lecture import (FeedForward, Head, LectureMultiHeadAttention, lesson_averaging, lesson_bigram,
                      lesson_block, lesson_head, lesson_positional)


# Every lesson at its text's own sizes, in `scratchgpt lesson`'s order: lessons.json.
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
    # Seed 001's snippet: query, key, value created in that order, B, T, C = 4, 3, 5, head_size 6.
    ("head", dict(B=4, T=3, C=5, head_size=6, order="query,key,value")),
    ("head", dict(B=4, T=3, C=5, head_size=6, order="query,key,value", trace=True)),
    ("head", dict(B=1, T=3, C=4, head_size=2, seed=3, order="value,key,query", trace=True)),
    ("block", dict(B=1, T=2, C=6, n_head=3, seed=7)),
    ("block", dict(B=2, T=5, C=12, n_head=2, seed=43)),
    ("block", dict(B=1, T=12, C=4, n_head=1, block_size=12, seed=0)),
    ("block", dict(B=1, T=3, C=6, n_head=2, seed=7, trace=True)),
    ("block", dict(trace=True)),
    ("simplified-attention", dict(T=2, d_in=3, seed=7)),
    ("simplified-attention", dict(T=5, d_in=6, seed=42)),
    ("simplified-attention", dict(seed=1)),
    ("simplified-attention", dict(random_inputs=True)),
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
    ("multi-head", dict(T=3, d_in=4, d_out=6, n_head=3, seed=11, trace=True)),
    ("causal-attention", dict(T=4, random_inputs=True, trace=True)),
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

def module_fixtures(folder):
    """modules/*.safetensors: each stepping-stone module on a small input, with its gradients."""
    def fixture(name, module, x, seed):
        record.module_fixture(folder, name, module, x, seed)

    def seeded(name, make, x, seed):
        record.seeded_fixture(folder, name, make, x, seed)

    g = torch.Generator().manual_seed(2024)
    inputs = torch.tensor(RASCHKA_INPUTS)
    batch = torch.stack((inputs, inputs * 0.5 - 0.1), dim=0)  # (2, 6, 3)
    torch.manual_seed(1)
    fixture("self_attention_v1", SelfAttention_v1(3, 2), inputs, 11)
    fixture("self_attention_v2", SelfAttention_v2(3, 2, qkv_bias=True), inputs, 12)
    fixture("causal_attention", CausalAttention(3, 2, 6, 0.0, qkv_bias=True), batch, 13)
    fixture("mha_wrapper", MultiHeadAttentionWrapper(3, 2, 6, 0.0, num_heads=3), batch, 14)
    fixture("multi_head_attention", MultiHeadAttention(3, 4, 6, 0.0, num_heads=2), batch, 15)
    xl = torch.randn(2, 5, 8, generator=g)
    fixture("head", Head(8, 4, 8, 0.0), xl, 16)
    fixture("lecture_mha", LectureMultiHeadAttention(8, 2, 4, 8, 0.0), xl, 17)
    fixture("feed_forward", FeedForward(8, 0.0), xl, 18)
    # Seeded construction + dropout in training mode: init order and dropout draws of each module.
    seeded("seeded_causal_attention", lambda: CausalAttention(3, 2, 6, 0.5), batch, 123)
    seeded("seeded_mha_wrapper", lambda: MultiHeadAttentionWrapper(3, 2, 6, 0.5, num_heads=2),
           batch, 123)
    seeded("seeded_multi_head_attention", lambda: MultiHeadAttention(3, 4, 6, 0.5, num_heads=2),
           batch, 123)
    seeded("seeded_head", lambda: Head(8, 4, 8, 0.3), xl, 1337)
    seeded("seeded_lecture_mha", lambda: LectureMultiHeadAttention(8, 2, 4, 8, 0.3), xl, 1337)
    seeded("seeded_feed_forward", lambda: FeedForward(8, 0.3), xl, 1337)
