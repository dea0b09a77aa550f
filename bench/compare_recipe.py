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
      [--threads 2] [--torch-threads 1] [--data-dir out/data/tinyshakespeare]
PyTorch's intra-op threads are --torch-threads; OpenBLAS (which Debian's torch calls for its
matrix products) gets --threads unless OPENBLAS_NUM_THREADS is set: on this 2-core machine one
torch thread with a 2-thread OpenBLAS was PyTorch's fastest setting (see BENCHMARKS.md).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--binary', default=os.path.join(ROOT, 'build/release/scratchgpt'))
    ap.add_argument('--data-dir', default=os.path.join(ROOT, 'out/data/tinyshakespeare'))
    ap.add_argument('--seed', type=int, default=1337)
    ap.add_argument('--threads', type=int, default=2, help='scratchgpt threads (and OpenBLAS)')
    ap.add_argument('--torch-threads', type=int, default=1, help='PyTorch intra-op threads')
    a = ap.parse_args()
    if not os.path.exists(a.binary):
        sys.exit(f'compare_recipe: no binary at {a.binary}: build it first (scripts/test.sh or cmake --build)')
    if not os.path.exists(os.path.join(a.data_dir, 'train.bin')):
        print(f'preparing {a.data_dir}', flush=True)
        subprocess.run([a.binary, 'prepare', '--input', os.path.join(ROOT, 'data/tinyshakespeare.txt'),
                        '--out-dir', a.data_dir], check=True)

    with tempfile.TemporaryDirectory(prefix='compare_recipe_') as out:
        cmd = [a.binary, 'train', '--preset', 'shakespeare-char-small', '--data-dir', a.data_dir,
               '--out-dir', out, '--seed', str(a.seed), '--threads', str(a.threads)]
        print('$ ' + ' '.join(cmd), flush=True)
        t0 = time.time()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        ours_s = time.time() - t0
        with open(os.path.join(out, 'metrics.jsonl')) as f:
            evals = [json.loads(l) for l in f if '"eval"' in l]
        ours_best = min(e['val_loss'] for e in evals)

    env = dict(os.environ)
    env.setdefault('OPENBLAS_NUM_THREADS', str(a.threads))
    cmd = ['/usr/bin/python3', os.path.join(ROOT, 'tools/nanogpt_char_reference.py'), a.data_dir,
           '--seed', str(a.seed), '--threads', str(a.torch_threads)]
    print(f'$ OPENBLAS_NUM_THREADS={env["OPENBLAS_NUM_THREADS"]} ' + ' '.join(cmd), flush=True)
    t0 = time.time()
    res = subprocess.run(cmd, check=True, env=env, capture_output=True, text=True)
    torch_s = time.time() - t0
    m = re.search(r'best val ([0-9.]+)', res.stdout)
    if not m:
        sys.exit('compare_recipe: no "best val" line from the PyTorch reference:\n' + res.stdout + res.stderr)
    torch_best = float(m.group(1))

    print(f'shakespeare-char-small, 2000 steps, seed {a.seed}: scratchgpt {a.threads} threads, '
          f'pytorch {a.torch_threads} (OpenBLAS {env["OPENBLAS_NUM_THREADS"]})')
    print(f'{"":12s}{"wall s":>10s}{"best val":>10s}')
    print(f'{"scratchgpt":12s}{ours_s:10.1f}{ours_best:10.4f}')
    print(f'{"pytorch":12s}{torch_s:10.1f}{torch_best:10.4f}')
    print(f'wall time: scratchgpt takes {ours_s / torch_s:.1%} of PyTorch\'s ({torch_s / ours_s:.2f}x faster)')


if __name__ == '__main__':
    main()
