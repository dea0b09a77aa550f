#!/usr/bin/env bash
# llamacpp_compare.sh: scratchgpt against llama.cpp on the same GPT-2 weights, same machine, same
# threads. (a) converts our checkpoints to GGUF (tools/gguf_from_checkpoint.py, gguf-py from the
# llama.cpp checkout); (b) checks that llama.cpp's greedy continuation of a prompt is ours at f32;
# (c) times decode (llama-bench -p 0 -n 128 against bench --sample 128) and prompt processing
# (-p 512 -n 0 against bench --prompt-tokens 512) at f32/bf16/q8_0 against our fp32/bf16/int8,
# alternated round by round (the machines are shared and noisy), and prints every round, the
# medians and the ratios. Not part of ctest: it needs a llama.cpp build (CPU: llama-bench,
# llama-simple), which CI does not have.
# Usage: bench/llamacpp_compare.sh LLAMA_BUILD_DIR [ROUNDS] [THREADS]
#   LLAMA_SRC (default: LLAMA_BUILD_DIR/..): the llama.cpp checkout, for gguf-py
#   SCRATCHGPT (default build/release/scratchgpt), WORK (default /tmp/llamacpp_compare): files
#   CHECK_CKPT: a GPT-2-BPE checkpoint for the cross-check (default: train shakespeare-bpe here)
#   PRESET (default gpt2): the shape timed, e.g. gpt2-xl; BIG_CKPT: its checkpoint with random
#     weights (default: train --max-iters 0 writes one, optimizer state included: 12 bytes a
#     parameter, 19 GB for gpt2-xl, so give a weights-only one there); DECODE_TOKENS (default
#     128) and PROMPT_TOKENS (default 512): llama-bench's -n and -p. The GGUFs of the preset stay
#     in WORK and are reused: delete them when BIG_CKPT changes. BIG_CHECK=0 skips the big
#     model's cross-check (a BIG_CKPT that sample cannot load: a weights file made elsewhere)
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: $0 LLAMA_BUILD_DIR [ROUNDS] [THREADS]" >&2; exit 2; }
lbin=$1/bin
rounds=${2:-3}
threads=${3:-2}
lsrc=${LLAMA_SRC:-$1/..}
sg=${SCRATCHGPT:-build/release/scratchgpt}
work=${WORK:-/tmp/llamacpp_compare}
py=/usr/bin/python3
for b in "$lbin/llama-bench" "$lbin/llama-simple" "$sg"; do
  [ -x "$b" ] || { echo "error: $b not found: build it first (see the header)" >&2; exit 2; }
done
mkdir -p "$work"
convert() {  # checkpoint type out
  "$py" tools/gguf_from_checkpoint.py --checkpoint "$1" --llama-cpp "$lsrc" --type "$2" --out "$3" --overwrite >/dev/null
}

# (b) The cross-check, on two models: a small GPT-2-BPE model trained here (CHECK_CKPT, or
# shakespeare-bpe trained 300 steps if not given) and GPT-2 small's shape with random weights
# (the model the speeds below are taken on).
ck=${CHECK_CKPT:-$work/bpe/best.safetensors}
if [ ! -f "$ck" ]; then
  "$sg" prepare --tokenizer gpt2 --out-dir "$work/data" >/dev/null
  "$sg" train --preset shakespeare-bpe --bias true --data-dir "$work/data" --out-dir "$work/bpe" \
    --max-iters 300 --lr-decay-iters 300 --eval-interval 300 --threads "$threads" >/dev/null
fi
preset=${PRESET:-gpt2}
ntok=${DECODE_TOKENS:-128}
ptok=${PROMPT_TOKENS:-512}
big=${BIG_CKPT:-$work/$preset/best.safetensors}
if [ ! -f "$big" ]; then
  [ -d "$work/data" ] || "$sg" prepare --tokenizer gpt2 --out-dir "$work/data" >/dev/null
  "$sg" train --preset "$preset" --max-iters 0 --batch-size 1 --eval-iters 1 --data-dir "$work/data" \
    --out-dir "$work/$preset" --threads "$threads" >/dev/null
fi
prompt=${CHECK_PROMPT:-ROMEO:}
cross_check() {  # checkpoint new-tokens gguf (the prompt and the tokens within the model's context)
  [ -f "$3" ] || convert "$1" f32 "$3"
  "$sg" sample --checkpoint "$1" --prompt "$prompt" --top-k 1 --max-new-tokens "$2" \
    --threads "$threads" >"$work/ours.txt" 2>/dev/null
  "$lbin/llama-simple" -m "$3" -n "$2" "$prompt" >"$work/theirs.txt" 2>/dev/null
  if ! cmp -s "$work/ours.txt" "$work/theirs.txt"; then
    echo "cross-check FAILED on $1: the greedy continuations differ (ours <, llama.cpp >)" >&2
    diff "$work/ours.txt" "$work/theirs.txt" >&2 || true
    exit 1
  fi
  echo "cross-check: $1, greedy continuation of '$prompt' ($2 tokens, f32): the same bytes from both:"
  head -c 300 "$work/ours.txt" | tr '\n' '|'
  echo
}
for t in f32 bf16 q8_0; do
  [ -f "$work/$preset-$t.gguf" ] || convert "$big" "$t" "$work/$preset-$t.gguf"
done
rm -f "$work/check.gguf"  # converted afresh: CHECK_CKPT may differ from the last run
cross_check "$ck" 56 "$work/check.gguf"
if [ "${BIG_CHECK:-1}" = 1 ]; then
  cross_check "$big" 40 "$work/$preset-f32.gguf"
fi

# (c) Speed: the preset's shape (random weights: speed does not depend on the values).
log=$work/rounds.jsonl
: >"$log"
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), $(nproc) cores, load: $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq "$rounds"); do
  for pair in f32:fp32 bf16:bf16 q8_0:int8; do
    t=${pair%%:*} w=${pair##*:}
    "$lbin/llama-bench" -m "$work/$preset-$t.gguf" -t "$threads" -p 0 -n "$ntok" -r 1 -o json 2>/dev/null |
      "$py" -c 'import json,sys; print(json.dumps({"who":"llama.cpp","w":sys.argv[1],"what":"decode","tps":json.load(sys.stdin)[0]["avg_ts"]}))' "$t" >>"$log"
    "$lbin/llama-bench" -m "$work/$preset-$t.gguf" -t "$threads" -p "$ptok" -n 0 -r 1 -o json 2>/dev/null |
      "$py" -c 'import json,sys; print(json.dumps({"who":"llama.cpp","w":sys.argv[1],"what":"prompt","tps":json.load(sys.stdin)[0]["avg_ts"]}))' "$t" >>"$log"
    "$sg" bench --preset "$preset" --sample "$ntok" --prompt-tokens "$ptok" --weights "$w" --threads "$threads" --json |
      "$py" -c 'import json,sys; j=json.load(sys.stdin); w=sys.argv[1]
print(json.dumps({"who":"scratchgpt","w":w,"what":"decode","tps":j["tokens_per_s"],"rss_mb":j["rss_mb"],"peak_rss_mb":j["peak_rss_mb"]}))
print(json.dumps({"who":"scratchgpt","w":w,"what":"prompt","tps":j["prefill_tokens_per_s"]}))' "$t" >>"$log"
  done
  echo "round $r done (load $(cut -d' ' -f1-3 /proc/loadavg))"
done
"$py" - "$log" "$threads" "$preset" "$ntok" "$ptok" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
print(f"{sys.argv[3]}, batch 1, {sys.argv[2]} threads; tokens/s, every round, then the median")
for what in ("decode", "prompt"):
    label = f"decode ({sys.argv[4]} new tokens)" if what == "decode" else f"prompt ({sys.argv[5]} tokens)"
    for w, ours_name in (("f32", "fp32"), ("bf16", "bf16"), ("q8_0", "int8")):
        get = lambda who: [r["tps"] for r in rows if r["who"] == who and r["w"] == w and r["what"] == what]
        o, t = get("scratchgpt"), get("llama.cpp")
        mo, mt = statistics.median(o), statistics.median(t)
        print(f"{label:24s} ours {ours_name:4s} {' '.join(f'{x:7.1f}' for x in o)} | median {mo:7.1f}"
              f"   llama.cpp {w:4s} {' '.join(f'{x:7.1f}' for x in t)} | median {mt:7.1f}"
              f"   ours/llama.cpp {mo / mt:.2f}x")
for w in ("f32", "bf16", "q8_0"):
    r = [x for x in rows if x["who"] == "scratchgpt" and x["w"] == w and "rss_mb" in x]
    if r:
        print(f"ours at {w}: resident {max(x['rss_mb'] for x in r):.0f} MB after the run, "
              f"peak {max(x['peak_rss_mb'] for x in r):.0f} MB (loading included)")
PY
