// lesson_out.h: what a lesson writes, step by step: titles, sentences, lines of text, tensors and
// traced matrices. The command line prints it as it comes (PyTorch's print format, byte for byte
// what the lessons always printed); the record keeps the same items, with each tensor's numbers,
// shape and printed texts, for a page to draw (`scratchgpt lesson NAME --json`, the lesson book).
// Leaves out: any drawing; the page decides how an item looks.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace scratchgpt::lessons {

struct TraceMatrix;

// One item of a step.
struct Shown {
  enum class Kind { kSay, kText, kTensor, kSize };
  Kind kind = Kind::kSay;
  std::string text;                // the sentence, the line, or the tensor's label ("wei[0]:")
  std::string op;                  // a traced matrix: the operation that made it ("k = key(x)")
  std::vector<double> values;      // kTensor: the elements in row-major order (int64 exactly)
  std::vector<int64_t> shape;      // kTensor, kSize: the shape ({} = a scalar)
  bool integer = false;            // an int64 tensor (torch.long)
  std::vector<std::string> cells;  // kTensor: each element as PyTorch prints it ("0.3796")
  std::vector<bool> masked;        // a traced matrix: elements shown as masked (empty: none)
  // A matrix's axes: a label per row and per column ("Your", "t=0", "c=1") and what each axis
  // is ("t (query)", "s (key)"); empty: none given. A vector's labels are `cols`.
  std::vector<std::string> rows, cols;
  std::string row_axis, col_axis;
};

struct ShownStep {
  std::string title;  // "" before the first step
  std::vector<Shown> items;
};

class LessonOut {
 public:
  // Prints to `text` as items come (nullptr: print nothing); with `keep`, the record keeps them
  // all (a lesson at a large size prints millions of numbers: only a page asks for the record).
  explicit LessonOut(std::ostream* text, bool keep = false) : text_(text), keep_(keep) {}
  void step(const std::string& title);  // "\n== title"
  void say(const std::string& sentence);
  void line(const std::string& text);  // a line printed as it is ("allclose(a, b): True")
  void tensor(const std::string& label, const float* data, const std::vector<int64_t>& shape);
  void tensor(const std::string& label, const int64_t* data, const std::vector<int64_t>& shape);
  void size(const std::string& label, const std::vector<int64_t>& shape);  // "torch.Size([..])"
  void trace(const TraceMatrix& m);  // "name tensor(...)", keeping its op, mask and labels
  // Labels the axes of the tensor just written (for the record only; the text is unchanged).
  void label(std::vector<std::string> rows, std::string row_axis, std::vector<std::string> cols,
             std::string col_axis);
  const std::vector<ShownStep>& record() const { return steps_; }
  // The record as JSON: [{"title": ..., "items": [{"kind": "say"|"text"|"tensor"|"size", ...}]}];
  // a tensor's "rows", "cols", "row_axis", "col_axis" where the lesson labelled its axes.
  std::string record_json() const;

 private:
  Shown& add(Shown::Kind kind, const std::string& text);
  std::ostream* text_;
  bool keep_;
  Shown scratch_;  // the item being written when the record is not kept
  std::vector<ShownStep> steps_{ShownStep{}};
};

}  // namespace scratchgpt::lessons
