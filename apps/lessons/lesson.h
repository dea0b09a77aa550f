// lesson.h: the lessons of `scratchgpt lesson`: each stepping stone of "Let's build GPT" and
// "Build a Large Language Model from Scratch" ch. 3, run step by step with the same seeds and
// call order as the Python of the texts, printing each tensor exactly as PyTorch prints it.
// One file per lesson in apps/lessons/; tests/e2e/lesson_test.cpp compares them with PyTorch.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "lessons/lesson_out.h"

namespace scratchgpt::lessons {

// What the command line asked for. A size or seed left out is the text's own value (each lesson
// knows its defaults); `scratchgpt lesson` checks that only the lesson's own flags are given and
// that every size is positive, the lesson checks the rest (T <= block_size, C % n_head == 0).
struct LessonOptions {
  std::string data_path;  // Tiny Shakespeare for the bigram lesson ("" = find it)
  std::optional<int> B, T, C, head_size, n_head, block_size;  // --B --T --C --head-size ...
  std::optional<int> d_in, d_out;                             // the book's --d-in --d-out
  std::optional<uint64_t> seed;                               // --seed (torch.manual_seed)
  bool random_inputs = false;  // --random-inputs: the book's lessons on torch.rand(T, d_in)
  std::string order;           // head --order: the creation order of key, query, value ("" = the
                               // lecture's key,query,value)
  bool trace = false;          // --trace: every intermediate of one head, batch element 0
  std::string html;            // --html FILE: the same trace as a self-contained page
  bool overwrite = false;      // --overwrite: replace an existing --html FILE
};

struct Lesson {
  const char* name;
  const char* source;  // "lecture" or "Raschka ch. 3.x"
  const char* description;
  void (*run)(const LessonOptions&, LessonOut&);
  // The flags it takes besides --data, space-separated, each with its default where it has one
  // ("B=4 T=8 C=2 seed=1337 trace"); "" = none.
  const char* flags = "";
};

// A lesson's tensors must fit in memory: fails naming `flags` when `elements` exceeds 2^26.
void check_elements(int64_t elements, const char* flags);
// The seed as Python writes it in a sentence ("1337").
std::string seed_text(uint64_t seed);

// Every lesson, in the order of the texts.
const std::vector<Lesson>& all_lessons();

// Writing helpers shared by the lessons (lesson_out.h prints and records).
void step(LessonOut& out, const std::string& title);  // "== title"
void say(LessonOut& out, const std::string& text);    // a sentence of explanation
// "label tensor([...])" in PyTorch's format (label may be empty).
void show(LessonOut& out, const std::string& label, const float* data,
          const std::vector<int64_t>& shape);
void show(LessonOut& out, const std::string& label, const int64_t* data,
          const std::vector<int64_t>& shape);
void show_scalar(LessonOut& out, const std::string& label, float value);
void show_size(LessonOut& out, const std::string& label, const std::vector<int64_t>& shape);

// Labels the (T, T) tensor just shown: query token t on the rows, key token s on the columns
// (token_labels); for the record only, the text is unchanged.
void label_scores(LessonOut& out, int T, bool journey);
// Labels the (T) tensor just shown (one query's scores or weights): key token s.
void label_keys(LessonOut& out, int T, bool journey);

// The six embedded tokens of "Your journey starts with one step" (Raschka ch. 3), (6, 3).
extern const float kJourneyInputs[6 * 3];

// The book's lessons' inputs (T, d_in): the journey's embeddings, or, with --random-inputs or
// when --T, --d-in or --seed differs from the book's 6, 3, 123, a sentence of T random embeddings
// of size d_in: torch.manual_seed(seed, default 123); inputs = torch.rand(T, d_in). So the book's
// values given explicitly print what leaving them out prints. T >= 2 (the 2nd token is the
// query). `sentence` says which.
std::vector<float> book_inputs(const LessonOptions& opt, int& T, int& d_in, std::string& sentence);
// True when book_inputs gives the journey's six embeddings.
bool journey_inputs(const LessonOptions& opt);
// The book's six words ("Your", "journey", ...) for the journey, else "t=0", "t=1", ...: the
// labels of a trace's token axis.
std::vector<std::string> token_labels(int T, bool journey);

void lesson_bigram(const LessonOptions&, LessonOut&);
void lesson_averaging(const LessonOptions&, LessonOut&);
void lesson_positional(const LessonOptions&, LessonOut&);
void lesson_head(const LessonOptions&, LessonOut&);
void lesson_block(const LessonOptions&, LessonOut&);
void lesson_simplified_attention(const LessonOptions&, LessonOut&);
void lesson_trainable_weights(const LessonOptions&, LessonOut&);
void lesson_causal_attention(const LessonOptions&, LessonOut&);
void lesson_multi_head(const LessonOptions&, LessonOut&);

}  // namespace scratchgpt::lessons
