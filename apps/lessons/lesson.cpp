// lesson.cpp: the table of lessons and the printing helpers they share.

#include "lessons/lesson.h"

#include "core/check.h"
#include "core/rng.h"

namespace scratchgpt::lessons {

const std::vector<Lesson>& all_lessons() {
  static const std::vector<Lesson> kLessons = {
      {"bigram", "lecture",
       "Tiny Shakespeare's characters, encode/decode, get_batch, the bigram model's loss and a "
       "sample",
       lesson_bigram},
      {"averaging", "lecture",
       "the mathematical trick: averaging the past by loops, by a tril matrix, by softmax",
       lesson_averaging, "B=4 T=8 C=2 seed=1337"},
      {"positional", "lecture",
       "token embeddings plus position embeddings: the same token at four positions",
       lesson_positional, "B=2 T=4 C=4 block-size=8 seed=1337"},
      {"head", "lecture", "one self-attention Head: keys, queries, the tril mask, HS^-0.5 scaling",
       lesson_head, "B=4 T=8 C=32 head-size=16 seed=1337 order=key,query,value trace html"},
      {"block", "lecture",
       "a transformer Block: x + sa(ln1(x)), then x + ffwd(ln2(x)), step by step", lesson_block,
       "B=2 T=4 C=8 n-head=2 head-size=C/n-head block-size=8 seed=1337 trace html"},
      {"simplified-attention", "Raschka ch. 3.3",
       "attention without trainable weights on \"Your journey starts with one step\"",
       lesson_simplified_attention, "T=6 d-in=3 seed=123 random-inputs"},
      {"trainable-weights", "Raschka ch. 3.4",
       "W_query, W_key, W_value, scaled dot products, SelfAttention_v1 and _v2",
       lesson_trainable_weights, "T=6 d-in=3 d-out=2 seed=123 random-inputs"},
      {"causal-attention", "Raschka ch. 3.5",
       "masking the future two ways, dropout on attention weights, CausalAttention",
       lesson_causal_attention,
       "T=6 context-length d-in=3 d-out=2 seed=123 random-inputs trace html"},
      {"multi-head", "Raschka ch. 3.6",
       "stacked heads (MultiHeadAttentionWrapper) and the efficient MultiHeadAttention",
       lesson_multi_head,
       "T=6 context-length d-in=3 d-out=2 n-head=2 seed=123 random-inputs trace html"},
  };
  return kLessons;
}

void check_elements(int64_t elements, const char* flags) {
  if (elements > (int64_t{1} << 26))
    fail(flags, " too large: the lesson's tensors would hold ", elements,
         " elements (at most 67108864)");
}

bool journey_inputs(const LessonOptions& opt) {
  return !opt.random_inputs && opt.T.value_or(6) == 6 && opt.d_in.value_or(3) == 3 &&
         opt.seed.value_or(123) == 123;
}

std::vector<std::string> token_labels(int T, bool journey) {
  static const char* const kWords[6] = {"Your", "journey", "starts", "with", "one", "step"};
  std::vector<std::string> labels;
  for (int t = 0; t < T; ++t)
    labels.push_back(journey && T == 6 ? kWords[t] : "t=" + std::to_string(t));
  return labels;
}

std::vector<float> book_inputs(const LessonOptions& opt, int& T, int& d_in, std::string& sentence) {
  if (journey_inputs(opt)) {
    T = 6;
    d_in = 3;
    sentence =
        "inputs = torch.tensor([...]): \"Your journey starts with one step\", 6 tokens of 3.";
    return std::vector<float>(kJourneyInputs, kJourneyInputs + 6 * 3);
  }
  T = opt.T.value_or(6);
  d_in = opt.d_in.value_or(3);
  const uint64_t seed = opt.seed.value_or(123);
  if (T < 2) fail("--T must be at least 2: the 2nd token is the query, got ", T);
  check_elements(int64_t{T} * T * 4 + int64_t{T} * d_in * 4, "--T, --d-in");
  sentence = "torch.manual_seed(" + seed_text(seed) + "); inputs = torch.rand(" +
             std::to_string(T) + ", " + std::to_string(d_in) + "): a sentence of " +
             std::to_string(T) + " tokens embedded in " + std::to_string(d_in) + " dimensions.";
  std::vector<float> inputs(int64_t{T} * d_in);
  Rng rng;
  rng.manual_seed(seed);
  rng.rand(inputs.data(), static_cast<int64_t>(inputs.size()));
  return inputs;
}

std::string seed_text(uint64_t seed) { return std::to_string(seed); }

void step(LessonOut& out, const std::string& title) { out.step(title); }

void say(LessonOut& out, const std::string& text) { out.say(text); }

void show(LessonOut& out, const std::string& label, const float* data,
          const std::vector<int64_t>& shape) {
  out.tensor(label, data, shape);
}

void show(LessonOut& out, const std::string& label, const int64_t* data,
          const std::vector<int64_t>& shape) {
  out.tensor(label, data, shape);
}

void show_scalar(LessonOut& out, const std::string& label, float value) {
  out.tensor(label, &value, {});
}

void show_size(LessonOut& out, const std::string& label, const std::vector<int64_t>& shape) {
  out.size(label, shape);
}

void label_scores(LessonOut& out, int T, bool journey) {
  out.label(token_labels(T, journey), "t (query)", token_labels(T, journey), "s (key)");
}

void label_keys(LessonOut& out, int T, bool journey) {
  out.label({}, "", token_labels(T, journey), "s (key)");
}

const float kJourneyInputs[6 * 3] = {
    0.43f, 0.15f, 0.89f,  // Your     (x^1)
    0.55f, 0.87f, 0.66f,  // journey  (x^2)
    0.57f, 0.85f, 0.64f,  // starts   (x^3)
    0.22f, 0.58f, 0.33f,  // with     (x^4)
    0.77f, 0.25f, 0.10f,  // one      (x^5)
    0.05f, 0.80f, 0.55f,  // step     (x^6)
};

}  // namespace scratchgpt::lessons
