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
        rows.append((ours_s, ours_best, torch_s, torch_best))
        # The UTC time the round ended: figures on a shared host are dated to the minute.
        print(f'round {r + 1} ({time.strftime("%H:%M:%S", time.gmtime())} UTC): scratchgpt '
              f'{ours_s:.1f} s (best val {ours_best:.4f}), PyTorch {torch_s:.1f} s '
              f'(best val {torch_best:.4f}): {ours_s / torch_s:.1%}', flush=True)

    print(f'shakespeare-char-small, 2000 steps, seed {a.seed}: scratchgpt {a.threads} threads, '
          f'PyTorch {a.torch_threads} threads, BLAS {blas}')
    print(f'{"":12s}{"wall s":>24s}{"best val":>10s}')
    print(f'{"scratchgpt":12s}{", ".join(f"{r[0]:.1f}" for r in rows):>24s}{rows[0][1]:10.4f}')
    print(f'{"pytorch":12s}{", ".join(f"{r[2]:.1f}" for r in rows):>24s}{rows[0][3]:10.4f}')
    ratio = statistics.median(r[0] / r[2] for r in rows)
    print(f'wall time: scratchgpt takes {ratio:.1%} of PyTorch\'s ({1 / ratio:.2f}x faster), '
          f'median of {len(rows)} round(s)')


def run_ours(a):
    with tempfile.TemporaryDirectory(prefix='compare_recipe_') as out:
        cmd = [a.binary, 'train', '--preset', 'shakespeare-char-small', '--data-dir', a.data_dir,
               '--out-dir', out, '--seed', str(a.seed), '--threads', str(a.threads)]
        print('$ ' + ' '.join(cmd), flush=True)
        t0 = time.time()
        res = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        ours_s = time.time() - t0
        if res.returncode != 0:
            sys.exit(f'compare_recipe: scratchgpt train failed (exit {res.returncode}):\n{res.stderr}')
        with open(os.path.join(out, 'metrics.jsonl')) as f:
            evals = [json.loads(l) for l in f if '"eval"' in l]
    return ours_s, min(e['val_loss'] for e in evals)


def run_torch(a, env):
    cmd = ['/usr/bin/python3', os.path.join(ROOT, 'tools/nanogpt_char_reference.py'), a.data_dir,
           '--seed', str(a.seed), '--threads', str(a.torch_threads)]
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
