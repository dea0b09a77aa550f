// bench_tiktoken.mjs: the competitor of 'scratchgpt bench --tokenizer gpt2': OpenAI's tiktoken
// (npm package, the WASM build of its Rust core), encoding "gpt2", encode_ordinary of a text
// repeated N times, best of 3, one thread (JavaScript's). Prints MB/s and tokens/s as JSON.
// Usage: NODE_PATH=/tmp/tk/node_modules node tools/bench_tiktoken.mjs [FILE] [REPEAT]
import { createRequire } from "module";
import fs from "fs";
const require = createRequire(import.meta.url);
const { get_encoding } = require("tiktoken");

const file = process.argv[2] || "data/tinyshakespeare.txt";
const repeat = Number(process.argv[3] || 10);
const text = fs.readFileSync(file, "utf8").repeat(repeat);
const bytes = Buffer.byteLength(text, "utf8");
const enc = get_encoding("gpt2");
let best = Infinity, tokens = 0;
for (let rep = 0; rep < 3; ++rep) {
  const t0 = process.hrtime.bigint();
  tokens = enc.encode_ordinary(text).length;
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  best = Math.min(best, s);
}
console.log(JSON.stringify({ impl: "tiktoken-npm", bytes, tokens, seconds: best,
                             mb_per_s: bytes / 1e6 / best, tokens_per_s: tokens / best }));
enc.free();
