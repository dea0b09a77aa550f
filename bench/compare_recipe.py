#!/usr/bin/python3
"""compare_recipe.py: the whole shakespeare-char-small recipe (2000 steps with its evaluations),
trained by scratchgpt and then by PyTorch running nanoGPT's training loop
(tools/nanogpt_char_reference.py) in the same run, with each one's wall time and best val loss,
and the ratio of the wall times.

The two models are the same (nanoGPT's choices) and so are their random draws (the preset's
--rng-stream nanogpt: nanoGPT's init, batches and evaluation batches for the seed), so the two
best val losses agree to rounding; PyTorch uses nanoGPT's exact GELU, scratchgpt the preset's
tanh form (--activation gelu-exact to match it; the losses differ by about 1e-4). Wall times
include process start-up.

Usage (Debian's python3-torch, so /usr/bin/python3):
  /usr/bin/python3 bench/compare_recipe.py [--binary build/release/scratchgpt] [--seed 1337]
      [--threads 2] [--torch-threads N] [--rounds 1] [--data-dir out/data/tinyshakespeare]
      [--dtype fp32|bf16] [--max-iters N]
--dtype bf16 trains ours with --dtype bf16 (a CPU with AVX512_BF16) and PyTorch twice a round, in
fp32 and with its forwards under torch.autocast("cpu", dtype=torch.bfloat16) (the reference's
--autocast bf16), and compares against the faster of the two (issue 40's bar: ours in under 35%
of it). --max-iters N: a shorter run of both (to try the script; the figures are the recipe's
2000 steps).
PyTorch runs at its best: torch.set_num_threads(--torch-threads, default --threads) with the
OpenMP build of OpenBLAS (apt-get install libopenblas0-openmp; chosen through LD_LIBRARY_PATH, so
that torch's OpenMP threads and OpenBLAS's are the same threads). The reference prints which BLAS
torch loaded and this script refuses to compare against the reference BLAS. --rounds N alternates
the two N times and reports the median of the per-round ratios (the machines are shared and noisy).
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, 'bench'))
import pytorch_at_its_best as best  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--binary', default=os.path.join(ROOT, 'build/release/scratchgpt'))
    ap.add_argument('--data-dir', default=os.path.join(ROOT, 'out/data/tinyshakespeare'))
    ap.add_argument('--seed', type=int, default=1337)
    ap.add_argument('--threads', type=int, default=2, help='scratchgpt threads')
    ap.add_argument('--torch-threads', type=int, help='PyTorch threads (default: --threads)')
    ap.add_argument('--rounds', type=int, default=1, help='alternate the two this many times')
    ap.add_argument('--dtype', choices=['fp32', 'bf16'], default='fp32',
                    help='bf16: ours with --dtype bf16, PyTorch in fp32 and under bf16 autocast')
    ap.add_argument('--max-iters', type=int, help='steps of both (default: the recipe\'s 2000)')
    a = ap.parse_args()
    if a.torch_threads is None:
        a.torch_threads = a.threads
    if not os.path.exists(a.binary):
        sys.exit(f'compare_recipe: no binary at {a.binary}: build it first (scripts/test.sh or cmake --build)')
    if not os.path.exists(os.path.join(a.data_dir, 'train.bin')):
        print(f'preparing {a.data_dir}', flush=True)
        subprocess.run([a.binary, 'prepare', '--input', os.path.join(ROOT, 'data/tinyshakespeare.txt'),
                        '--out-dir', a.data_dir], check=True)

    env = best.openmp_openblas_env() or dict(os.environ)

    rows = []
    for r in range(a.rounds):
        ours_s, ours_best = run_ours(a)
        torch_s, torch_best, blas = run_torch(a, env)
        also = ''
        if a.dtype == 'bf16':  # the competitor at its best: the faster of fp32 and bf16 autocast
            auto_s, auto_best, _ = run_torch(a, env, autocast='bf16')
            also = (f'; PyTorch in fp32 {torch_s:.1f} s (best val {torch_best:.4f}), under bf16 '
                    f'autocast {auto_s:.1f} s (best val {auto_best:.4f})')
            if auto_s < torch_s:
                torch_s, torch_best = auto_s, auto_best
        rows.append((ours_s, ours_best, torch_s, torch_best))
        # The UTC time the round ended: figures on a shared host are dated to the minute.
        print(f'round {r + 1} ({time.strftime("%H:%M:%S", time.gmtime())} UTC): scratchgpt '
              f'{ours_s:.1f} s (best val {ours_best:.4f}), PyTorch {torch_s:.1f} s '
              f'(best val {torch_best:.4f}){also}: {ours_s / torch_s:.1%}', flush=True)

    steps = a.max_iters if a.max_iters is not None else 2000
    best_of = ' (the faster of fp32 and bf16 autocast each round)' if a.dtype == 'bf16' else ''
    print(f'shakespeare-char-small, {steps} steps, seed {a.seed}, ours in {a.dtype}: scratchgpt '
          f'{a.threads} threads, PyTorch{best_of} {a.torch_threads} threads, BLAS {blas}')
    print(f'{"":12s}{"wall s":>24s}{"best val":>10s}')
    print(f'{"scratchgpt":12s}{", ".join(f"{r[0]:.1f}" for r in rows):>24s}{rows[0][1]:10.4f}')
    print(f'{"pytorch":12s}{", ".join(f"{r[2]:.1f}" for r in rows):>24s}{rows[0][3]:10.4f}')
    ratio = statistics.median(r[0] / r[2] for r in rows)
    print(f'wall time: scratchgpt takes {ratio:.1%} of PyTorch\'s ({1 / ratio:.2f}x faster), '
          f'median of {len(rows)} round(s)')


def run_ours(a):
    with tempfile.TemporaryDirectory(prefix='compare_recipe_') as out:
        cmd = [a.binary, 'train', '--preset', 'shakespeare-char-small', '--data-dir', a.data_dir,
               '--out-dir', out, '--seed', str(a.seed), '--threads', str(a.threads),
               '--dtype', a.dtype]
        if a.max_iters is not None:
            cmd += ['--max-iters', str(a.max_iters)]  # the schedule stays the recipe's, as theirs
        print('$ ' + ' '.join(cmd), flush=True)
        t0 = time.time()
        res = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        ours_s = time.time() - t0
        if res.returncode != 0:
            sys.exit(f'compare_recipe: scratchgpt train failed (exit {res.returncode}):\n{res.stderr}')
        with open(os.path.join(out, 'metrics.jsonl')) as f:
            evals = [json.loads(l) for l in f if '"eval"' in l]
    return ours_s, min(e['val_loss'] for e in evals)


def run_torch(a, env, autocast='none'):
    cmd = ['/usr/bin/python3', os.path.join(ROOT, 'tools/nanogpt_char_reference.py'), a.data_dir,
           '--seed', str(a.seed), '--threads', str(a.torch_threads), '--autocast', autocast]
    if a.max_iters is not None:
        cmd += ['--max-iters', str(a.max_iters)]
    lib = env.get('LD_LIBRARY_PATH')
    print('$ ' + (f'LD_LIBRARY_PATH={lib} ' if lib else '') + ' '.join(cmd), flush=True)
    t0 = time.time()
    res = subprocess.run(cmd, check=True, env=env, capture_output=True, text=True)
    torch_s = time.time() - t0
    m = re.search(r'best val ([0-9.]+)', res.stdout)
    if not m:
        sys.exit('compare_recipe: no "best val" line from the PyTorch reference:\n' + res.stdout + res.stderr)
    b = re.search(r'^blas: (.*)$', res.stdout, re.M)
    blas = b.group(1) if b else 'unknown'
    if best.is_reference_blas(blas.split(', ')):
        sys.exit(f'compare_recipe: PyTorch loaded the reference BLAS ({blas}), not OpenBLAS: '
                 'apt-get install libopenblas0-openmp')
    return torch_s, float(m.group(1)), blas


if __name__ == '__main__':
    main()
