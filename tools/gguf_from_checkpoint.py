#!/usr/bin/env python3
# gguf_from_checkpoint.py: writes one of our GPT-2-shaped checkpoints (a .safetensors that train,
# import or export --format scratchgpt wrote) as a GGUF file llama.cpp's gpt2 architecture loads,
# with GPT-2's BPE (tokens and merges, from the checkpoint's own tokenizer) and the weights in f32,
# bf16, f16 or q8_0 (the 2-D weights; norms, biases and the position table stay f32, as llama.cpp's
# own converter keeps them). The GGUF writer is gguf-py from a llama.cpp checkout, imported at run
# time (--llama-cpp DIR): nothing of llama.cpp is in this repository.
# Leaves out: character models (llama.cpp has no such vocabulary), ReLU and erf-GELU MLPs (its gpt2
# graph is the tanh GELU), nanoGPT's padded 50304-row vocabulary, training state (not read).
#
#   python3 tools/gguf_from_checkpoint.py --checkpoint out/bpe/best.safetensors \
#       --llama-cpp ~/llama.cpp --type q8_0 --out out/bpe-q8_0.gguf
import argparse
import json
import os
import sys
import tempfile

TYPES = ("f32", "bf16", "f16", "q8_0")


class BadInput(Exception):
    """A one-line message naming the problem and the fix."""


def read_safetensors(path):
    """(tensors: name -> (dtype, shape, offset, nbytes), metadata, data offset) of a safetensors."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import safetensors_io
    try:
        return safetensors_io.read_header(path)
    except OSError as e:
        raise BadInput(f"cannot read checkpoint {path}: {e.strerror}; check the path")
    except ValueError as e:
        raise BadInput(f"{path} is not a safetensors file ({e}): pass a checkpoint that train, "
                       "import or export --format scratchgpt wrote")


def model_config(path, meta):
    """The checkpoint's GPT config, refused with the reason where llama.cpp's gpt2 cannot run it."""
    if meta.get("format") != "scratchgpt.checkpoint":
        raise BadInput(f"{path} is not a scratchgpt checkpoint (no format 'scratchgpt.checkpoint' "
                       "in its metadata): import it first (scratchgpt import --format hf|nanogpt|llmc)")
    cfg = json.loads(meta.get("config", "{}"))
    if cfg.get("model", "gpt") != "gpt":
        raise BadInput(f"{path} holds a {cfg.get('model')} model, not a GPT: only a GPT converts to "
                       "llama.cpp's gpt2")
    if cfg.get("activation") != "gelu":
        raise BadInput(f"{path} has a {cfg.get('activation')} MLP, but llama.cpp's gpt2 computes the "
                       "tanh GELU: train with --activation gelu (GPT-2's)")
    if "tokenizer" not in meta:
        raise BadInput(f"{path} has a character vocabulary, which llama.cpp's gpt2 cannot read: "
                       "train on GPT-2's tokens (scratchgpt prepare --tokenizer gpt2)")
    return cfg


def bpe_vocab(path, meta, vocab_size):
    """(tokens by id, merges as 'a b' lines, end-of-text id) from the checkpoint's tokenizer."""
    tok = json.loads(meta["tokenizer"])
    encoder = json.loads(tok["encoder.json"])
    if len(encoder) != vocab_size:
        raise BadInput(f"{path} has a vocabulary of {vocab_size} rows but its tokenizer has "
                       f"{len(encoder)} tokens (a padded vocabulary?): llama.cpp needs them equal; "
                       "export a model whose vocab_size is its tokenizer's")
    tokens = [None] * vocab_size
    for text, i in encoder.items():
        tokens[i] = text
    merges = [line for line in tok["vocab.bpe"].split("\n")
              if line and not line.startswith("#version")]
    return tokens, merges, encoder.get("<|endoftext|>")


def load_tensor(np, path, tensors, base, name, shape=None):
    """The F32 tensor `name` as a numpy array; None if it is absent and shape is None."""
    if name not in tensors:
        if shape is None:
            raise BadInput(f"{path} has no tensor '{name}': it is damaged or not a GPT; use "
                           "another checkpoint")
        return None
    dtype, shp, off, nbytes = tensors[name]
    if dtype != "F32" or (shape is not None and list(shp) != list(shape)):
        raise BadInput(f"{path}: tensor '{name}' is {dtype} {shp}, expected F32 {shape}: it is "
                       "damaged; use another checkpoint")
    a = np.memmap(path, dtype=np.float32, mode="r", offset=base + off, shape=tuple(shp))
    return np.array(a)


def gpt2_tensors(np, path, cfg, tensors, base):
    """(gguf name, numpy (out, in) array, quantisable) in llama.cpp's gpt2 layout; absent biases
    (a --bias false model) are written as zeros, which is what the model computes."""
    C, V, T, L = cfg["n_embd"], cfg["vocab_size"], cfg["block_size"], cfg["n_layer"]
    get = lambda name, shape: load_tensor(np, path, tensors, base, name, shape)
    bias = lambda name, n: (get(name, [n]) if name in tensors else np.zeros(n, np.float32))
    wte = get("wte", [V, C])
    head = wte if cfg.get("tied", True) else get("lm_head.weight", [V, C])
    out = [("token_embd.weight", wte, True), ("position_embd.weight", get("wpe", [T, C]), False),
           ("output_norm.weight", get("ln_f.weight", [C]), False),
           ("output_norm.bias", bias("ln_f.bias", C), False), ("output.weight", head, True)]
    for l in range(L):
        p = f"blocks.{l}."
        for ours, theirs, oc, ic in (("attn.c_attn", "attn_qkv", 3 * C, C),
                                     ("attn.c_proj", "attn_output", C, C),
                                     ("mlp.c_fc", "ffn_up", 4 * C, C),
                                     ("mlp.c_proj", "ffn_down", C, 4 * C)):
            out.append((f"blk.{l}.{theirs}.weight", get(p + ours + ".weight", [oc, ic]), True))
            out.append((f"blk.{l}.{theirs}.bias", bias(p + ours + ".bias", oc), False))
        for ours, theirs in (("ln_1", "attn_norm"), ("ln_2", "ffn_norm")):
            out.append((f"blk.{l}.{theirs}.weight", get(p + ours + ".weight", [C]), False))
            out.append((f"blk.{l}.{theirs}.bias", bias(p + ours + ".bias", C), False))
    return out


def import_gguf(llama_cpp):
    """gguf-py from the llama.cpp checkout; its vocab module imports sentencepiece, which GPT-2's
    BPE never uses, so an empty stand-in is put first on the path if the real one is missing."""
    pkg = os.path.join(llama_cpp, "gguf-py")
    if not os.path.isfile(os.path.join(pkg, "gguf", "gguf_writer.py")):
        raise BadInput(f"--llama-cpp {llama_cpp} has no gguf-py/gguf/gguf_writer.py: pass the root "
                       "of a llama.cpp checkout")
    sys.path.insert(0, pkg)
    try:
        import sentencepiece  # noqa: F401
    except ImportError:
        stub = tempfile.mkdtemp(prefix="sentencepiece_stub_")
        with open(os.path.join(stub, "sentencepiece.py"), "w") as f:
            f.write("SentencePieceProcessor = None  # stand-in: GPT-2's BPE never uses it\n")
        sys.path.insert(0, stub)
    import gguf
    return gguf


def write_gguf(gguf, np, args, cfg, vocab, weights):
    """The GGUF of llama.cpp's gpt2 (the keys its convert_hf_to_gguf.py writes for GPT-2)."""
    Q = gguf.GGMLQuantizationType
    qtype = {"f32": Q.F32, "bf16": Q.BF16, "f16": Q.F16, "q8_0": Q.Q8_0}[args.type]
    ftype = {"f32": gguf.LlamaFileType.ALL_F32, "bf16": gguf.LlamaFileType.MOSTLY_BF16,
             "f16": gguf.LlamaFileType.MOSTLY_F16, "q8_0": gguf.LlamaFileType.MOSTLY_Q8_0}[args.type]
    w = gguf.GGUFWriter(args.out, "gpt2")
    w.add_name(os.path.splitext(os.path.basename(args.checkpoint))[0])
    w.add_block_count(cfg["n_layer"])
    w.add_context_length(cfg["block_size"])
    w.add_embedding_length(cfg["n_embd"])
    w.add_feed_forward_length(4 * cfg["n_embd"])
    w.add_head_count(cfg["n_head"])
    w.add_layer_norm_eps(1e-5)
    w.add_file_type(ftype)
    tokens, merges, eot = vocab
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("gpt-2")
    w.add_token_list(tokens)
    w.add_token_types([gguf.TokenType.CONTROL if i == eot else gguf.TokenType.NORMAL
                       for i in range(len(tokens))])
    w.add_token_merges(merges)
    if eot is not None:
        w.add_bos_token_id(eot)
        w.add_eos_token_id(eot)
    w.add_add_bos_token(False)  # a prompt is its own tokens, as in 'scratchgpt sample'
    for name, a, quantisable in weights:
        t = qtype if quantisable else Q.F32
        if t == Q.Q8_0 and a.shape[-1] % 32:
            print(f"note: {name} has rows of {a.shape[-1]} (not a multiple of 32): kept f32",
                  file=sys.stderr)
            t = Q.F32
        if t in (Q.F32, Q.F16):
            w.add_tensor(name, gguf.quants.quantize(a, t))
        else:
            q = gguf.quants.quantize(a, t)
            w.add_tensor(name, q, raw_shape=q.shape, raw_dtype=t)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    ap.add_argument("--checkpoint", required=True, help="our .safetensors checkpoint (a GPT-2 BPE model)")
    ap.add_argument("--llama-cpp", required=True, help="root of a llama.cpp checkout (for gguf-py)")
    ap.add_argument("--type", default="f32", help="weights: " + ", ".join(TYPES) + " (default f32)")
    ap.add_argument("--out", required=True, help="the .gguf file to write")
    ap.add_argument("--overwrite", action="store_true", help="replace --out if it exists")
    args = ap.parse_args(argv)
    try:
        if args.type not in TYPES:
            raise BadInput(f"--type {args.type} is not one of {', '.join(TYPES)}: pick one of them")
        if os.path.exists(args.out) and not args.overwrite:
            raise BadInput(f"--out {args.out} exists: give --overwrite to replace it, or choose "
                           "another --out (nothing was written)")
        tensors, meta, base = read_safetensors(args.checkpoint)
        cfg = model_config(args.checkpoint, meta)
        vocab = bpe_vocab(args.checkpoint, meta, cfg["vocab_size"])
        gguf = import_gguf(args.llama_cpp)
        import numpy as np
        weights = gpt2_tensors(np, args.checkpoint, cfg, tensors, base)
        try:
            write_gguf(gguf, np, args, cfg, vocab, weights)
        except OSError as e:
            raise BadInput(f"cannot write --out {args.out}: {e.strerror}; check that its "
                           "directory exists and is writable")
    except BadInput as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"wrote {args.out} ({args.type}, {cfg['n_layer']} layers, C={cfg['n_embd']}, "
          f"V={cfg['vocab_size']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
