"""make_rng_fixtures.py: records what PyTorch's seeded CPU generator draws, for tests/core/rng_test.cpp
and tests/nn/init_test.cpp.

Each fixture file is one scenario: torch.manual_seed(seed), then a sequence of random calls in a fixed
order. The file's metadata holds the seed and the call list (JSON); tensor "out_<k>" (and "out_<k>_b"
for a second output) holds what call k returned, "in_<k>" any input it took. The C++ test replays the
same calls on scratchgpt::Rng and compares bit for bit, so both the transforms and the order in which
the generator state is consumed are proven.

Run with Debian's python3-torch 1.13 (see tests/fixtures/rng/README.md):
    /usr/bin/python3 tools/make_rng_fixtures.py
"""
import json
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import safetensors_io  # noqa: E402

OUT_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "rng")
SEEDS = [0, 42, 1337, 123, 2**32 + 5]


def side_probs(k, rows, n, zeros=False):
    """Probabilities from a private generator, so the global stream is not touched."""
    g = torch.Generator().manual_seed(1000 + k)
    logits = torch.randn(max(rows, 1), n, generator=g) * 2.0
    p = torch.softmax(logits, dim=-1)
    if zeros:
        p[:, ::3] = 0.0  # some categories impossible
    return p if rows > 0 else p[0]


def run(op, k, tensors):
    """Performs call k with torch's global generator; stores its outputs (and inputs)."""
    name = op["op"]
    out = f"out_{k:03d}"
    if name == "rand":
        tensors[out] = torch.rand(op["n"])
    elif name == "uniform":
        tensors[out] = torch.empty(op["n"]).uniform_(op["from"], op["to"])
    elif name == "randn":
        tensors[out] = torch.randn(op["n"])
    elif name == "normal":
        tensors[out] = torch.empty(op["n"]).normal_(op["mean"], op["std"])
    elif name == "randint":
        tensors[out] = torch.randint(op["low"], op["high"], (op["n"],))
    elif name == "bernoulli":
        tensors[out] = torch.bernoulli(torch.full((op["n"],), op["p"]))
    elif name == "bernoulli_scalar":
        tensors[out] = torch.empty(op["n"]).bernoulli_(op["p"])
    elif name == "dropout":
        x = torch.linspace(-2.0, 3.0, op["n"])
        tensors[f"in_{k:03d}"] = x
        tensors[out] = torch.nn.Dropout(op["p"]).train()(x)
    elif name == "exponential":
        tensors[out] = torch.empty(op["n"]).exponential_(op["lambda"])
    elif name == "multinomial":
        p = side_probs(k, op["rows"], op["n"], op.get("zeros", False))
        tensors[f"in_{k:03d}"] = p
        tensors[out] = torch.multinomial(p, op["num_samples"], replacement=op["replacement"])
    elif name == "randperm":
        tensors[out] = torch.randperm(op["n"])
    elif name == "linear":
        lin = torch.nn.Linear(op["C"], op["OC"], bias=op["bias"])
        tensors[out] = lin.weight.detach()
        if op["bias"]:
            tensors[out + "_b"] = lin.bias.detach()
    elif name == "embedding":
        tensors[out] = torch.nn.Embedding(op["V"], op["C"]).weight.detach()
    else:
        raise ValueError(name)


def mixed(seed):
    """Every kind of call, interleaved, with sizes around the 16-wide normal blocks."""
    ops = [{"op": "rand", "n": 1}, {"op": "rand", "n": 3}, {"op": "randn", "n": 1},
           {"op": "randn", "n": 3}, {"op": "randn", "n": 15}, {"op": "randn", "n": 16},
           {"op": "randn", "n": 17}, {"op": "randn", "n": 31}, {"op": "rand", "n": 100},
           {"op": "randint", "n": 10, "low": 0, "high": 65},
           {"op": "multinomial", "rows": 0, "n": 65, "num_samples": 1, "replacement": False},
           {"op": "rand", "n": 5}, {"op": "randn", "n": 1000}, {"op": "randn", "n": 1},
           {"op": "normal", "n": 7, "mean": 0.5, "std": 2.0},
           {"op": "normal", "n": 33, "mean": 0.0, "std": 0.02},
           {"op": "normal", "n": 100, "mean": -1.25, "std": 0.3},
           {"op": "uniform", "n": 17, "from": -0.3, "to": 0.7},
           {"op": "uniform", "n": 50, "from": -1.7, "to": 2.9},
           {"op": "bernoulli", "n": 50, "p": 0.3}, {"op": "bernoulli_scalar", "n": 50, "p": 0.9},
           {"op": "dropout", "n": 64, "p": 0.2}, {"op": "dropout", "n": 10, "p": 0.5},
           {"op": "dropout", "n": 8, "p": 0.0}, {"op": "dropout", "n": 8, "p": 1.0},
           {"op": "randint", "n": 20, "low": 0, "high": 2**40},
           {"op": "randint", "n": 5, "low": -7, "high": 7},
           {"op": "randint", "n": 5, "low": 0, "high": 2**32},
           {"op": "randint", "n": 5, "low": 0, "high": 2**32 - 1},
           {"op": "randint", "n": 6, "low": -2**62, "high": 2**62},
           {"op": "randint", "n": 8, "low": 0, "high": 1115394 - 8},
           {"op": "exponential", "n": 20, "lambda": 1.0},
           {"op": "exponential", "n": 9, "lambda": 2.5},
           {"op": "multinomial", "rows": 4, "n": 65, "num_samples": 1, "replacement": False},
           {"op": "multinomial", "rows": 4, "n": 65, "num_samples": 1, "replacement": True},
           {"op": "multinomial", "rows": 0, "n": 10, "num_samples": 10, "replacement": True},
           {"op": "multinomial", "rows": 3, "n": 7, "num_samples": 20, "replacement": True,
            "zeros": True},
           {"op": "multinomial", "rows": 3, "n": 30, "num_samples": 5, "replacement": False},
           {"op": "multinomial", "rows": 0, "n": 12, "num_samples": 12, "replacement": False},
           {"op": "multinomial", "rows": 2, "n": 9, "num_samples": 3, "replacement": False,
            "zeros": True},
           # more samples than non-zero categories: topk's order among the tied zeros
           {"op": "multinomial", "rows": 2, "n": 9, "num_samples": 7, "replacement": False,
            "zeros": True},
           {"op": "multinomial", "rows": 0, "n": 200, "num_samples": 140, "replacement": False,
            "zeros": True},
           {"op": "multinomial", "rows": 3, "n": 300, "num_samples": 4, "replacement": False,
            "zeros": True},
           {"op": "multinomial", "rows": 5, "n": 9, "num_samples": 1, "replacement": False,
            "zeros": True},
           {"op": "randn", "n": 3}, {"op": "rand", "n": 2}, {"op": "randn", "n": 250},
           {"op": "randn", "n": 5}, {"op": "rand", "n": 700}, {"op": "randperm", "n": 1},
           {"op": "randperm", "n": 10}, {"op": "randperm", "n": 1000}, {"op": "randn", "n": 2}]
    return ops


def init_ops():
    """The default initialisations of nn.Linear and nn.Embedding, in construction order."""
    return [{"op": "linear", "C": 32, "OC": 96, "bias": True},
            {"op": "linear", "C": 384, "OC": 65, "bias": False},
            {"op": "embedding", "V": 65, "C": 32},
            {"op": "linear", "C": 3, "OC": 5, "bias": True},
            {"op": "embedding", "V": 2, "C": 3},
            {"op": "linear", "C": 1000, "OC": 10, "bias": True},
            {"op": "linear", "C": 7, "OC": 1, "bias": True},
            {"op": "embedding", "V": 8, "C": 33},
            {"op": "normal", "n": 4096, "mean": 0.0, "std": 0.02},
            {"op": "randn", "n": 7}]


def sampling_ops():
    """The lecture's loop: batches by randint, then one token at a time by multinomial."""
    ops = [{"op": "randint", "n": 32, "low": 0, "high": 1003854 - 256}]
    for _ in range(40):
        ops.append({"op": "multinomial", "rows": 1, "n": 65, "num_samples": 1,
                    "replacement": False})
    ops.append({"op": "multinomial", "rows": 1, "n": 50257, "num_samples": 1,
                "replacement": False})
    ops.append({"op": "multinomial", "rows": 1, "n": 50257, "num_samples": 40,
                "replacement": True})
    ops.append({"op": "multinomial", "rows": 1, "n": 5000, "num_samples": 60,
                "replacement": False})
    ops.append({"op": "dropout", "n": 4 * 8 * 32, "p": 0.2})
    ops.append({"op": "randn", "n": 4 * 8 * 32})
    return ops


def raschka_ch3():
    """'Build an LLM from Scratch' ch. 3: seeded weights by torch.rand, then dropout(0.5)."""
    return [{"op": "rand", "n": 6}, {"op": "rand", "n": 6}, {"op": "rand", "n": 6},
            {"op": "dropout", "n": 36, "p": 0.5}, {"op": "dropout", "n": 6 * 6 * 2, "p": 0.5}]


def raschka_ch3_linear():
    """SelfAttention_v2(d_in=3, d_out=2): three nn.Linear(3, 2, bias=False), seeded with 789."""
    return [{"op": "linear", "C": 3, "OC": 2, "bias": False} for _ in range(3)]


def write(name, seed, ops):
    torch.manual_seed(seed)
    tensors = {}
    for k, op in enumerate(ops):
        run(op, k, tensors)
    meta = {"seed": str(seed), "ops": json.dumps(ops), "torch": torch.__version__,
            "cpu_capability": cpu_capability()}
    safetensors_io.save(os.path.join(OUT_DIR, name + ".safetensors"), tensors, meta)


def cpu_capability():
    return torch.__config__.show().split("CPU capability usage: ")[1].split("\n")[0].strip()


def main():
    # randn's vectorised path differs between torch's AVX2 and default kernels; we match AVX2.
    if cpu_capability() != "AVX2":
        sys.exit(f"torch runs its {cpu_capability()} kernels here; the fixtures need AVX2 "
                 "(unset ATEN_CPU_CAPABILITY or use an AVX2 machine)")
    os.makedirs(OUT_DIR, exist_ok=True)
    for seed in SEEDS:
        write(f"mixed_seed{seed}", seed, mixed(seed))
    for seed in [0, 1337]:
        write(f"init_seed{seed}", seed, init_ops())
    write("sampling_seed1337", 1337, sampling_ops())
    write("mixed_raschka_ch3_seed123", 123, raschka_ch3())
    write("init_raschka_ch3_seed789", 789, raschka_ch3_linear())
    print("wrote", OUT_DIR)


if __name__ == "__main__":
    main()
