// gen_bpe_fixtures.mjs: the oracle for scratchgpt's GPT-2 tokenizer. Encodes texts with OpenAI's
// tiktoken (npm package `tiktoken`, the WASM build of OpenAI's Rust tiktoken, encoding "gpt2")
// and writes the committed fixtures the C++ tests compare every id against:
//   tests/fixtures/tokenizer/gpt2_cases.json        hand-picked and random texts: ordinary and
//                                                    special-allowed ids
//   tests/fixtures/tokenizer/tinyshakespeare.gpt2   all of data/tinyshakespeare.txt, uint16 LE ids
// Usage (from the repository root): (cd /tmp/tk && npm install tiktoken) &&
//   NODE_PATH=/tmp/tk/node_modules node tools/gen_bpe_fixtures.mjs
import { createRequire } from "module";
import fs from "fs";
const require = createRequire(import.meta.url);
const { get_encoding } = require("tiktoken");

const enc = get_encoding("gpt2");
const hand = [
  "", "a", " ", "Hello, world!", "Hello world", "  leading spaces", "trailing spaces   ",
  "tabs\tand\ttabs\t\t", "CRLF\r\nline\r\n\r\n", "many\n\n\n\nnewlines\n", "   \n  \n\t mixed",
  "I'm you're we've they'll she'd it's can't", "I'M YOU'RE WE'VE THEY'LL SHE'D IT'S CAN'T",
  "'s 't 're 've 'm 'll 'd ''s '", "digits 0123456789 3.14159 1,000,000 ٣٤٥ ½ Ⅻ",
  "int main() { return x->y[0] + 42; } // code", "def f(x):\n    return x**2  # python\n",
  "<|endoftext|>", "a<|endoftext|>b", "<|endoftext|><|endoftext|>", "<|endoftext", "<|endofprompt|>",
  "日本語のテキストと中文文本", "한국어 텍스트", "العربية نص", "עברית טקסט", "Ελληνικά κείμενο",
  "Кириллица текст", "e\u0301 a\u0300 n\u0303 combining", "emoji 😀👍🏽👨‍👩‍👧‍👦🇫🇷🏳️‍🌈",
  "nbsp\u00a0here ideographic\u3000space zero\u200bwidth", "next\u0085line line\u2028sep para\u2029sep",
  "supercalifragilisticexpialidocious".repeat(20), "x".repeat(1000), " ".repeat(300) + "end",
  "9".repeat(500), "!!!???...,,,;;;", "email@example.com https://example.org/path?q=1&r=2",
  "MiXeD CaSe WoRdS", "\u0000\u0001\u001f control", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝟘𝟙𝟚",
];
// Random texts from a mix of classes, seeded (mulberry32).
let seed = 1337;
function rnd() {
  seed |= 0; seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pools = [
  "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", "0123456789", " ", "  \t\n\r",
  "'sdtmlrve", ".,;:!?-_()[]{}<>\"'/\\|@#$%^&*+=~`", "日本語中文한국어", "العربيةעברית",
  "\u0301\u0300\u0303\u0308", "😀👍🏽👨‍👩‍👧🇫🇷", "\u00a0\u3000\u200b\u0085\u2028\u2029\u202f",
  "٣٤٥½Ⅻ𝟘", "éüñçøåßœ", "<|endoftext|>",
];
const randoms = [];
for (let i = 0; i < 3000; ++i) {
  const len = 1 + Math.floor(rnd() * 40);
  let s = "";
  for (let k = 0; k < len; ++k) {
    const pool = Array.from(pools[Math.floor(rnd() * pools.length)]);
    const n = 1 + Math.floor(rnd() * 4);
    for (let j = 0; j < n; ++j) s += pool[Math.floor(rnd() * pool.length)];
  }
  randoms.push(s);
}
const cases = [...hand, ...randoms].map((text) => ({
  text,
  ordinary: Array.from(enc.encode_ordinary(text)),
  special: Array.from(enc.encode(text, "all")),
}));
fs.mkdirSync("tests/fixtures/tokenizer", { recursive: true });
fs.writeFileSync("tests/fixtures/tokenizer/gpt2_cases.json", JSON.stringify({ cases }) + "\n");
const shakespeare = fs.readFileSync("data/tinyshakespeare.txt", "utf8");
const ids = enc.encode_ordinary(shakespeare);
fs.writeFileSync("tests/fixtures/tokenizer/tinyshakespeare.gpt2",
                 Buffer.from(new Uint16Array(ids).buffer));
console.log(`${cases.length} cases, Tiny Shakespeare: ${ids.length} tokens`);
enc.free();
