#!/usr/bin/python3
"""compare_steps.py: scratchgpt's training step against PyTorch at its best, alternated pair by pair.

For each workload, runs `scratchgpt bench --json` and then the competitor's harness
(../shared/bench/pytorch_anchor/run.sh train: nanoGPT's own model.py on Debian's torch with
torch.set_num_threads and the OpenMP OpenBLAS), --pairs times, and prints each pair's step times
and ratio, then one table: the median of the pairs' ratios (PyTorch's median step / ours), their
range, ours as a share of the FMA peak `bench` measured in the same run, our steady-state page
faults and both peak RSS. These are the figures of BENCHMARKS.md's table of current figures (every
run: docs/bench-log.md) and of issue 19's targets. It also prints what `bench` measured a cache
line's hand-off from core to core to cost (its core-to-core probe): the host sets it, and it moves
our step times from hour to hour.

--dtype bf16 runs ours with --dtype bf16 (a CPU with AVX512_BF16) and the competitor twice per pair,
in fp32 and under torch.autocast("cpu", dtype=torch.bfloat16) (the harness's --autocast bf16), and
takes the ratio against the faster of its two: on a CPU with bf16 instructions that is its best.
Each pair also runs ours in fp32 just before ours in bf16, and the table adds bf16's speed-up over
it (our fp32 step / our bf16 step) and fp32's share of the FMA peak; bf16's share is of the
vdpbf16ps peak `bench` measured.

--isa avx2 caps every side at AVX2 (for an AVX-512 machine): ours through --simd avx2 and
DNNL_MAX_CPU_ISA=AVX2 (oneDNN), PyTorch through ATEN_CPU_CAPABILITY=avx2 and
OPENBLAS_CORETYPE=Haswell.

Usage (Debian's python3-torch, so /usr/bin/python3; NANOGPT_SRC names a nanoGPT checkout, as the
harness needs):
  /usr/bin/python3 bench/compare_steps.py [--isa full|avx2] [--only S,M8,gpt2,M64] [--pairs N]
      [--dtype fp32|bf16] [--binary build/release/scratchgpt] [--harness ../shared/bench/pytorch_anchor/run.sh]
The whole small recipe is bench/compare_recipe.py.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# name: (our bench flags, the harness's train flags, default pairs)
WORKLOADS = {
    'S': ('--preset shakespeare-char-small --steps 30 --warmup 3', '--config S --steps 30', 3),
    'M8': ('--preset shakespeare-char --batch-size 8 --steps 4 --warmup 1',
           '--config M --batch-size 8 --steps 4 --warmup 1', 2),
    'gpt2': ('--preset gpt2 --steps 5 --warmup 1', '--config gpt2 --steps 3 --warmup 1', 2),
    'M64': ('--preset shakespeare-char --steps 3 --warmup 1', '--config M --steps 3 --warmup 1', 1),
}
CAPS = {
    'full': ({}, [], {}),
    'avx2': ({'DNNL_MAX_CPU_ISA': 'AVX2'}, ['--simd', 'avx2'],
             {'ATEN_CPU_CAPABILITY': 'avx2', 'OPENBLAS_CORETYPE': 'Haswell'}),
}

# The harness's summary: "RESULT S B=12 T=64 threads=2: step ms min/median/max = 39.9/40.4/43.8 | ..."
RESULT_RE = re.compile(r'^RESULT .*step ms min/median/max = ([\d.]+)/([\d.]+)/([\d.]+)', re.M)
RSS_RE = re.compile(r'^peak RSS \(getrusage\): (\d+) MiB', re.M)


def fail(msg):
    sys.exit(f'compare_steps.py: {msg}')


def run(cmd, env):
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if p.returncode != 0:
        fail(f'{" ".join(cmd)} exited {p.returncode}: {(p.stderr or p.stdout).strip()[-400:]}')
    return p.stdout, p.stderr


def ours(a, flags, env, simd, dtype=None):
    dtype = dtype or a.dtype
    out, _ = run([a.binary, 'bench', *flags.split(), *simd, '--threads', str(a.threads),
                  '--dtype', dtype, '--json'], env)
    r = json.loads(out)
    peak = max(r['peak_gflops_avx2'], r['peak_gflops_avx512'] if not simd else 0)
    if dtype == 'bf16' and not simd and r.get('peak_gflops_bf16', 0) > 0:
        peak = r['peak_gflops_bf16']  # vdpbf16ps's: the ceiling of bf16's products
    return {'ms': r['ms_per_step'], 'peak': r['gflops'] / peak if peak > 0 else float('nan'),
            'faults': r['page_faults_per_step_max'],
            'rss': r['peak_rss_mb'], 'cpu': r['cpu'], 'simd': r['simd'],
            'xcore': r.get('cross_core_store_ns', 0.0)}


def theirs(a, flags, env, autocast='none'):
    out = ''.join(run([a.harness, 'train', *flags.split(), '--threads', str(a.threads),
                       '--autocast', autocast], env))
    m = RESULT_RE.search(out)
    if not m:
        fail(f'no RESULT line from {a.harness} train {flags}:\n{out[-600:]}')
    if 'openblas-openmp' not in out:
        fail('the harness did not load the OpenMP OpenBLAS: PyTorch is not at its best '
             '(apt-get install libopenblas0-openmp)')
    rss = RSS_RE.search(out)
    return {'ms': float(m.group(2)), 'rss': float(rss.group(1)) if rss else float('nan')}


def theirs_best(a, flags, env):
    """fp32, and with --dtype bf16 also under bf16 autocast: the faster of the two as 'ms'."""
    t = theirs(a, flags, env)
    t['fp32'] = t['ms']
    if a.dtype == 'bf16':
        b = theirs(a, flags, env, 'bf16')
        t['bf16'] = b['ms']
        t['ms'] = min(t['fp32'], b['ms'])
        t['rss'] = max(t['rss'], b['rss'])
    return t


def span(xs, fmt):
    lo, hi = fmt % min(xs), fmt % max(xs)
    return lo if lo == hi else f'{lo}-{hi}'


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--isa', choices=sorted(CAPS), default='full')
    ap.add_argument('--only', default=','.join(WORKLOADS), help='workloads, comma-separated')
    ap.add_argument('--pairs', type=int, help='pairs per workload (default: S 3, M8 2, gpt2 2, M64 1)')
    ap.add_argument('--threads', type=int, default=2, help='threads for both sides')
    ap.add_argument('--dtype', choices=['fp32', 'bf16'], default='fp32',
                    help='bf16: ours with --dtype bf16, PyTorch in fp32 and under bf16 autocast')
    ap.add_argument('--binary', default=os.path.join(ROOT, 'build/release/scratchgpt'))
    ap.add_argument('--harness',
                    default=os.path.join(ROOT, '..', 'shared', 'bench', 'pytorch_anchor', 'run.sh'))
    a = ap.parse_args()
    names = [n for n in a.only.split(',') if n]
    for n in names:
        if n not in WORKLOADS:
            fail(f'unknown workload {n!r} in --only: choose from {",".join(WORKLOADS)}')
    if not os.access(a.binary, os.X_OK):
        fail(f'no scratchgpt binary at {a.binary}: build it (cmake --preset release && '
             'cmake --build --preset release) or pass --binary')
    if not os.access(a.harness, os.X_OK):
        fail(f'no harness at {a.harness}: pass --harness (../shared/bench/pytorch_anchor/run.sh)')
    if not os.environ.get('NANOGPT_SRC'):
        fail('NANOGPT_SRC is not set: point it at a nanoGPT checkout (the harness imports its model.py)')
    our_env, simd, torch_env = CAPS[a.isa]
    our_env = {**os.environ, **our_env}
    torch_env = {**os.environ, **torch_env}

    rows = []
    for n in names:
        our_flags, torch_flags, default_pairs = WORKLOADS[n]
        pairs = []
        for i in range(a.pairs or default_pairs):
            o32 = ours(a, our_flags, our_env, simd, 'fp32') if a.dtype == 'bf16' else None
            o = ours(a, our_flags, our_env, simd)
            if o32:
                o['fp32'] = o32
            t = theirs_best(a, torch_flags, torch_env)
            pairs.append((o, t))
            theirs_ms = (f'{t["ms"]:.2f} ms' if a.dtype == 'fp32' else
                         f'{t["ms"]:.2f} ms (fp32 {t["fp32"]:.2f}, bf16 autocast {t["bf16"]:.2f})')
            ours_fp32 = (f', ours in fp32 {o32["ms"]:.2f} ms ({o32["peak"]:.0%} of the FMA peak: '
                         f'bf16 {o32["ms"] / o["ms"]:.2f}x it)' if o32 else '')
            print(f'{n} pair {i + 1}: ours {o["ms"]:.2f} ms ({o["peak"]:.0%} of the peak, core to '
                  f'core {o["xcore"]:.1f} ns a line), PyTorch {theirs_ms}: '
                  f'{t["ms"] / o["ms"]:.2f}x{ours_fp32}', flush=True)
        ratios = [t['ms'] / o['ms'] for o, t in pairs]
        rows.append((n, pairs, ratios))

    cpu, level = rows[0][1][0][0]['cpu'], rows[0][1][0][0]['simd']
    xcore = [p[0]['xcore'] for _, pairs, _ in rows for p in pairs]
    best = '' if a.dtype == 'fp32' else ' (the faster of fp32 and bf16 autocast)'
    print(f'\n{cpu}, ours at {level} ({a.isa}) in {a.dtype}, PyTorch{best}, {a.threads} threads, '
          f'both sides; a store to lines '
          f'another core just read: {span(xcore, "%.1f")} ns a line (bench\'s core-to-core probe)')
    bf16 = a.dtype == 'bf16'
    peak_col = 'of the vdpbf16ps peak' if bf16 and not simd else 'of the FMA peak'
    extra = ' ours in fp32 (ms) | bf16 over our fp32, median (range) | fp32 of the FMA peak |'
    print(f'| workload | ours (ms) | PyTorch (ms) | ratio, median (range) | {peak_col} | '
          'page faults a step after the first | peak RSS ours / PyTorch (MiB) |'
          + (extra if bf16 else ''))
    print('|---|---|---|---|---|---|---|' + ('---|---|---|' if bf16 else ''))
    for n, pairs, ratios in rows:
        o = [p[0] for p in pairs]
        t = [p[1] for p in pairs]
        line = (f'| {n} | {span([x["ms"] for x in o], "%.2f")} | '
                f'{span([x["ms"] for x in t], "%.2f")} '
                f'| {statistics.median(ratios):.2f}x ({span(ratios, "%.2f")}) '
                f'| {span([100 * x["peak"] for x in o], "%.0f")}% | {max(x["faults"] for x in o)} '
                f'| {span([x["rss"] for x in o], "%.0f")} / {span([x["rss"] for x in t], "%.0f")} |')
        if bf16:
            o32 = [x['fp32'] for x in o]
            up = [f['ms'] / x['ms'] for f, x in zip(o32, o)]
            line += (f' {span([x["ms"] for x in o32], "%.2f")} | {statistics.median(up):.2f}x '
                     f'({span(up, "%.2f")}) | {span([100 * x["peak"] for x in o32], "%.0f")}% |')
        print(line)


if __name__ == '__main__':
    main()
