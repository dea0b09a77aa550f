#!/usr/bin/env bash
# finetune_recipe.sh: nanoGPT's finetune_shakespeare at a size a laptop CPU does in minutes.
# Tiny Shakespeare is cut at a line: the first 36,000 lines pretrain a small GPT-2-shaped model
# (--preset shakespeare-bpe, GPT-2's tokens) from scratch; the last 4,000 lines (the end of The
# Taming of the Shrew, then The Tempest: text the model has never seen) are the "new" text it is
# fine-tuned on with --init-from. A control run continues the pretraining on the first text for the
# same steps, so the gain of fine-tuning is told apart from the gain of training longer. Every loss
# is 'eval' over all of the new text's val split (its last 10%), nothing the fine-tuning saw.
#   scripts/finetune_recipe.sh [BINARY] [OUT]   (defaults: build/release/scratchgpt, out/finetune)
set -euo pipefail
B=${1:-build/release/scratchgpt}
OUT=${2:-out/finetune}
PRE_ITERS=${PRE_ITERS:-300}
FT_ITERS=${FT_ITERS:-100}
mkdir -p "$OUT"
head -n 36000 data/tinyshakespeare.txt >"$OUT/pretrain.txt"
tail -n +36001 data/tinyshakespeare.txt >"$OUT/finetune.txt"
"$B" prepare --tokenizer gpt2 --input "$OUT/pretrain.txt" --out-dir "$OUT/data_pre"
"$B" prepare --tokenizer gpt2 --input "$OUT/finetune.txt" --out-dir "$OUT/data_ft"

set -x
"$B" train --preset shakespeare-bpe --max-iters "$PRE_ITERS" --lr-decay-iters "$PRE_ITERS" \
  --eval-interval 100 --data-dir "$OUT/data_pre" --out-dir "$OUT/pre" --overwrite
"$B" eval --checkpoint "$OUT/pre/last.safetensors" --data-dir "$OUT/data_ft"   # before

# Fine-tune: the pretrained weights, a fresh optimizer, a lower constant-then-decayed lr.
FT="--max-iters $FT_ITERS --lr 3e-4 --min-lr 3e-5 --warmup-iters 0 --lr-decay-iters $FT_ITERS \
    --eval-interval 50"
"$B" train --init-from "$OUT/pre/last.safetensors" $FT --data-dir "$OUT/data_ft" \
  --out-dir "$OUT/ft" --overwrite
"$B" eval --checkpoint "$OUT/ft/last.safetensors" --data-dir "$OUT/data_ft"    # after
# Control: the same steps on the pretraining text. Another seed: seed 1337's stream would draw the
# very batches the pretraining began with.
"$B" train --init-from "$OUT/pre/last.safetensors" $FT --seed 2 --data-dir "$OUT/data_pre" \
  --out-dir "$OUT/ctl" --overwrite
"$B" eval --checkpoint "$OUT/ctl/last.safetensors" --data-dir "$OUT/data_ft"   # control
# The old text's val split, before and after each.
for run in pre ft ctl; do
  "$B" eval --checkpoint "$OUT/$run/last.safetensors" --data-dir "$OUT/data_pre"
done
