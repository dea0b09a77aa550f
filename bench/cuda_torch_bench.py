#!/usr/bin/env python3
"""cuda_torch_bench.py: the competitor on the GPU, for `scratchgpt bench --device cuda`.

Trains nanoGPT's own model.py (unmodified; --nanogpt names the directory that holds it, a
checkout outside the repo) on random tokens with nanoGPT's train.py settings: TF32 matrix
products, fused AdamW, gradient clipping at 1.0, flash attention through
F.scaled_dot_product_attention; in fp32 or under torch.autocast(bfloat16), eager or
torch.compile. Prints one RESULT line per setting: ms/step and tokens/s (median of the timed
steps, CUDA events).

  python3 bench/cuda_torch_bench.py --nanogpt DIR --batch-size 16 --seq-len 1024 --compile both
"""
import argparse
import contextlib
import statistics
import sys

import torch


def run(args, compiled, dtype):
    sys.path.insert(0, args.nanogpt)
    from model import GPT, GPTConfig  # nanoGPT's

    torch.manual_seed(1337)
    torch.backends.cuda.matmul.allow_tf32 = True  # as nanoGPT's train.py
    torch.backends.cudnn.allow_tf32 = True
    cfg = GPTConfig(block_size=args.seq_len, vocab_size=args.vocab_size, n_layer=args.n_layer,
                    n_head=args.n_head, n_embd=args.n_embd, dropout=0.0, bias=True)
    model = GPT(cfg).cuda()
    opt = model.configure_optimizers(0.1, 6e-4, (0.9, 0.95), "cuda")
    step_model = torch.compile(model) if compiled else model
    amp = (torch.autocast("cuda", dtype=torch.bfloat16) if dtype == "bf16"
           else contextlib.nullcontext())
    B, T = args.batch_size, args.seq_len
    x = torch.randint(args.vocab_size, (B, T), device="cuda")
    y = torch.randint(args.vocab_size, (B, T), device="cuda")

    def step():
        with amp:
            _, loss = step_model(x, y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)
        return loss

    for _ in range(args.warmup):
        step()
    torch.cuda.synchronize()
    times = []
    for _ in range(args.steps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        step()
        b.record()
        torch.cuda.synchronize()
        times.append(a.elapsed_time(b))
    ms = statistics.median(times)
    n_params = sum(p.numel() for p in model.parameters()) - model.transformer.wpe.weight.numel()
    flops = 6 * n_params + 12 * args.n_layer * args.n_embd * T  # per token, nanoGPT's estimate
    tps = B * T / (ms / 1000)
    print(f"RESULT torch {torch.__version__} {'compile' if compiled else 'eager'} {dtype} "
          f"B={B} T={T}: {ms:.1f} ms/step, {tps:,.0f} tokens/s, "
          f"{flops * tps / 1e12:.1f} TFLOP/s ({torch.cuda.get_device_name()})", flush=True)
    del model, opt, step_model
    torch.cuda.empty_cache()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--nanogpt", required=True, help="directory holding nanoGPT's model.py")
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--seq-len", type=int, default=1024)
    p.add_argument("--vocab-size", type=int, default=50304)
    p.add_argument("--n-layer", type=int, default=12)
    p.add_argument("--n-head", type=int, default=12)
    p.add_argument("--n-embd", type=int, default=768)
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--dtype", default="fp32", choices=["fp32", "bf16", "both"])
    p.add_argument("--compile", default="no", choices=["no", "yes", "both"])
    args = p.parse_args()
    for compiled in {"no": [False], "yes": [True], "both": [False, True]}[args.compile]:
        for dtype in {"fp32": ["fp32"], "bf16": ["bf16"], "both": ["fp32", "bf16"]}[args.dtype]:
            run(args, compiled, dtype)


if __name__ == "__main__":
    main()
