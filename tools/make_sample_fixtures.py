#!/usr/bin/python3
"""make_sample_fixtures.py: nanoGPT's generate() in PyTorch, for tests/sample/nanogpt_sample_test.cpp.

nanoGPT's model.py generate(): for each new token, crop idx to the last block_size tokens, run the
whole window forward, take the last position's logits / temperature, keep the top_k (logits below
the k-th largest set to -inf), softmax, torch.multinomial(probs, 1), append. The model is
tools/make_gpt_fixtures.py's GPT (nanoGPT's modules), in its gelu_tied variant (V=11,
block_size=8, L=2, NH=2, C=16, tanh GELU, tied, no biases) with its large random weights, float32
as nanoGPT samples on a CPU. The generator is the global one right after torch.manual_seed(seed).
Writes tests/fixtures/sample/nanogpt_generate.safetensors holding
  param.<name>            float32 weights under the C++ checkpoint names
  prompt                  (3,) int32: the prompt ids
  ids.<case>              int32: the new tokens of each case (40 tokens, so 35 past the window)
metadata: V, block_size, n_layer, n_head, n_embd, activation, bias, tied, and per case its
seed, temperature, top_k (0: none) and construct_first (1: as nanoGPT's sample.py, which seeds
before it builds the model, so the model's construction and init draw first).
Deterministic. Regenerate from the repository root with Debian's PyTorch 1.13:

    /usr/bin/python3 tools/make_sample_fixtures.py [--out tests/fixtures/sample]
"""
import argparse
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_gpt_fixtures as g  # noqa: E402
import safetensors_io  # noqa: E402

CASES = {  # name: (seed, temperature, top_k, as sample.py)
    "plain": (1337, 1.0, None, False),
    "t08_k5": (42, 0.8, 5, False),
    # nanoGPT's sample.py: torch.manual_seed(seed), then GPT(gptconf) (its construction and init
    # draw from the generator), load_state_dict, generate; its defaults temperature 0.8, top_k 200.
    "sample_py": (1337, 0.8, 200, True),
}
PROMPT = [1, 2, 3]
NEW_TOKENS = 40


@torch.no_grad()
def generate(model, idx, max_new_tokens, block_size, temperature=1.0, top_k=None):
    """nanoGPT's GPT.generate, verbatim but for the forward's dummy targets."""
    for _ in range(max_new_tokens):
        idx_cond = idx if idx.size(1) <= block_size else idx[:, -block_size:]
        logits, _ = model(idx_cond, torch.zeros_like(idx_cond))
        logits = logits[:, -1, :] / temperature
        if top_k is not None:
            v, _ = torch.topk(logits, min(top_k, logits.size(-1)))
            logits[logits < v[:, [-1]]] = -float("Inf")
        probs = F.softmax(logits, dim=-1)
        idx_next = torch.multinomial(probs, num_samples=1)
        idx = torch.cat((idx, idx_next), dim=1)
    return idx


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="tests/fixtures/sample")
    args = ap.parse_args()
    torch.set_num_threads(1)
    cfg = g.VARIANTS["gelu_tied"]
    torch.manual_seed(0)
    model = g.GPT(cfg)
    g.randomize(model, torch.Generator().manual_seed(7))
    model.eval()
    tensors = {"param." + g.our_name(n): p.detach().clone() for n, p in model.named_parameters()}
    tensors["prompt"] = torch.tensor(PROMPT, dtype=torch.int32)
    meta = {k: cfg[k] for k in ("V", "block_size", "n_layer", "n_head", "n_embd")}
    meta.update(activation=cfg["activation"], bias=int(cfg["bias"]), tied=int(cfg["tied"]))
    for name, (seed, temperature, top_k, as_sample_py) in CASES.items():
        torch.manual_seed(seed)
        m = model
        if as_sample_py:
            m = g.GPT(cfg)
            m.load_state_dict(model.state_dict())
            m.eval()
        idx = generate(m, torch.tensor([PROMPT]), NEW_TOKENS, cfg["block_size"], temperature,
                       top_k)
        tensors["ids." + name] = idx[0, len(PROMPT):].to(torch.int32)
        meta[name + ".seed"], meta[name + ".temperature"] = seed, temperature
        meta[name + ".top_k"] = top_k or 0
        meta[name + ".construct_first"] = int(as_sample_py)
        print(name, idx[0].tolist())
    os.makedirs(args.out, exist_ok=True)
    safetensors_io.save(os.path.join(args.out, "nanogpt_generate.safetensors"), tensors, meta)


if __name__ == "__main__":
    main()
