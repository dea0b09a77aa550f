// lesson_out.cpp: see lesson_out.h.
#include "lessons/lesson_out.h"

#include <nlohmann/json.hpp>

#include "lessons/trace_page.h"
#include "stones/print.h"

namespace scratchgpt::lessons {

Shown& LessonOut::add(Shown::Kind kind, const std::string& text) {
  Shown& s = keep_ ? steps_.back().items.emplace_back() : (scratch_ = Shown{});
  s.kind = kind;
  s.text = text;
  return s;
}

void LessonOut::step(const std::string& title) {
  if (keep_) steps_.push_back(ShownStep{title, {}});
  if (text_) *text_ << "\n== " << title << "\n";
}

void LessonOut::say(const std::string& sentence) {
  add(Shown::Kind::kSay, sentence);
  if (text_) *text_ << sentence << "\n";
}

void LessonOut::line(const std::string& text) {
  add(Shown::Kind::kText, text);
  if (text_) *text_ << text << "\n";
}

void LessonOut::tensor(const std::string& label, const float* data,
                       const std::vector<int64_t>& shape) {
  Shown& s = add(Shown::Kind::kTensor, label);
  s.shape = shape;
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  if (keep_) {
    s.values.assign(data, data + n);
    s.cells = element_texts(data, shape);
  }
  if (text_) *text_ << (label.empty() ? "" : label + " ") << format_tensor(data, shape) << "\n";
}

void LessonOut::tensor(const std::string& label, const int64_t* data,
                       const std::vector<int64_t>& shape) {
  Shown& s = add(Shown::Kind::kTensor, label);
  s.shape = shape;
  s.integer = true;
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  for (int64_t i = 0; keep_ && i < n; ++i) {
    s.values.push_back(static_cast<double>(data[i]));
    s.cells.push_back(std::to_string(data[i]));
  }
  if (text_) *text_ << (label.empty() ? "" : label + " ") << format_tensor(data, shape) << "\n";
}

void LessonOut::size(const std::string& label, const std::vector<int64_t>& shape) {
  add(Shown::Kind::kSize, label).shape = shape;
  if (text_) *text_ << (label.empty() ? "" : label + " ") << format_size(shape) << "\n";
}

void LessonOut::trace(const TraceMatrix& m) {
  tensor(m.name, m.data.data(), m.shape);
  Shown& s = keep_ ? steps_.back().items.back() : scratch_;
  s.op = m.op;
  s.masked = m.masked;
  s.rows = m.rows;
  s.cols = m.cols;
  s.row_axis = m.row_axis;
  s.col_axis = m.col_axis;
  for (const std::string& note : m.notes) line(note);
}

void LessonOut::label(std::vector<std::string> rows, std::string row_axis,
                      std::vector<std::string> cols, std::string col_axis) {
  Shown& s = keep_ ? steps_.back().items.back() : scratch_;
  s.rows = std::move(rows);
  s.cols = std::move(cols);
  s.row_axis = std::move(row_axis);
  s.col_axis = std::move(col_axis);
}

std::string LessonOut::record_json() const {
  static const char* const kKinds[] = {"say", "text", "tensor", "size"};
  nlohmann::json steps = nlohmann::json::array();
  for (const ShownStep& st : steps_) {
    nlohmann::json items = nlohmann::json::array();
    for (const Shown& s : st.items) {
      nlohmann::json j = {{"kind", kKinds[static_cast<int>(s.kind)]}, {"text", s.text}};
      if (s.kind == Shown::Kind::kTensor || s.kind == Shown::Kind::kSize) j["shape"] = s.shape;
      if (s.kind == Shown::Kind::kTensor) {
        j["values"] = s.values;  // a non-finite value is null; its cell says which
        j["cells"] = s.cells;
        if (s.integer) j["integer"] = true;
      }
      if (!s.op.empty()) j["op"] = s.op;
      if (!s.masked.empty()) j["masked"] = s.masked;
      if (!s.rows.empty()) j["rows"] = s.rows;
      if (!s.cols.empty()) j["cols"] = s.cols;
      if (!s.row_axis.empty()) j["row_axis"] = s.row_axis;
      if (!s.col_axis.empty()) j["col_axis"] = s.col_axis;
      items.push_back(std::move(j));
    }
    if (st.title.empty() && items.empty()) continue;  // nothing before the first step
    steps.push_back({{"title", st.title}, {"items", std::move(items)}});
  }
  return steps.dump();
}

}  // namespace scratchgpt::lessons
