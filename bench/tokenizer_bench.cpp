// tokenizer_bench.cpp: GPT-2's BPE merge loops on one pre-token piece. long/*: encode of one piece
// of 1, 2, 4 and 8 MB (one letter repeated; random digits, a long line of numbers), through
// BpeTokenizer::encode, so the pre-tokenizer and encode_piece's choice of loop are in it; the time
// should about double with the size (O(n log n)). short/*: merge_scan against merge_heap on pieces
// of 4 to 1024 bytes of random letters, the figures behind BpeTokenizer::kScanMaxBytes. The whole
// text's speed is `scratchgpt bench --tokenizer gpt2`; the work counts are in bpe_test.
//   build-*/tokenizer_bench --benchmark_filter=long
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "bench_main.h"
#include "tokenizer/bpe.h"

namespace {

using namespace scratchgpt;

const BpeTokenizer& gpt2() {
  static const BpeTokenizer tok = BpeTokenizer::gpt2();
  return tok;
}

std::string random_of(const std::string& alphabet, size_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<size_t> pick(0, alphabet.size() - 1);
  std::string s(n, ' ');
  for (char& c : s) c = alphabet[pick(gen)];
  return s;
}

void BM_long_piece(benchmark::State& state, const std::string& alphabet) {
  const std::string text = random_of(alphabet, static_cast<size_t>(state.range(0)) << 20, 1);
  size_t tokens = 0;
  for (auto _ : state) tokens = gpt2().encode(text).size();
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(text.size()));
  state.counters["tokens"] = static_cast<double>(tokens);
}

// A batch of pieces of one length (random letters), each merged by one loop.
void BM_short_piece(benchmark::State& state, bool heap) {
  const size_t n = static_cast<size_t>(state.range(0)), count = 4096;
  std::vector<std::string> pieces;
  for (size_t i = 0; i < count; ++i)
    pieces.push_back(random_of("abcdefghijklmnopqrstuvwxyz", n, static_cast<uint32_t>(i)));
  std::vector<int32_t> ids;
  for (auto _ : state) {
    for (const std::string& p : pieces) {
      ids.clear();
      if (heap)
        gpt2().merge_heap(p, ids);
      else
        gpt2().merge_scan(p, ids);
    }
    benchmark::DoNotOptimize(ids.data());
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(n * count));
}

void register_all() {
  for (const auto& [name, alphabet] :
       {std::pair<const char*, std::string>{"a", "a"}, {"digits", "0123456789"}})
    benchmark::RegisterBenchmark((std::string("long/") + name).c_str(), BM_long_piece, alphabet)
        ->Arg(1)
        ->Arg(2)
        ->Arg(4)
        ->Arg(8)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  for (bool heap : {false, true})
    benchmark::RegisterBenchmark(heap ? "short/heap" : "short/scan", BM_short_piece, heap)
        ->RangeMultiplier(2)
        ->Range(4, 1024)
        ->Unit(benchmark::kMicrosecond)
        ->UseRealTime();
}

}  // namespace

int main(int argc, char** argv) {
  gpt2();  // loaded before the first row, not inside it
  register_all();
  return scratchgpt::bench::run_benchmarks(argc, argv);
}
