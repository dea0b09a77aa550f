// print.cpp: PyTorch's tensor printing (torch/_tensor_str.py, version 1.13) re-done in C++.
// The rules, in the order PyTorch applies them:
//  1. Above 1000 elements only the first and last 3 entries of every dimension are shown (and
//     only those decide the format).
//  2. Floats: over the nonzero finite values, if all are whole numbers print "3." (integer mode);
//     if max/min > 1000, max > 1e8 or (non-integer) min < 1e-4 print "1.2346e-05" (scientific);
//     otherwise "0.1234". Every entry is right-aligned to the widest formatted nonzero value.
//  3. A 1-D row wraps after floor((80 - indent) / (width + 2)) entries.
#include "stones/print.h"

#include <cmath>
#include <cstdio>
#include <functional>

#include "core/check.h"

namespace scratchgpt {
namespace {

constexpr int kPrecision = 4;
constexpr int kLineWidth = 80;
constexpr int64_t kThreshold = 1000;
constexpr int64_t kEdgeItems = 3;

std::string printf_str(const char* fmt, int width, double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), fmt, width, kPrecision, v);
  return buf;
}

// Python's '{:.4f}', '{:.4e}', '{:.0f}' of a float: as C's printf, but inf/nan spelled by Python.
std::string py_format(double v, char kind, int width = 0) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (kind == 'f') return printf_str("%*.*f", width, v);
  if (kind == 'e') return printf_str("%*.*e", width, v);
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.0f", v);  // kind '0'
  return buf;
}

struct Formatter {
  bool floating = true;
  bool int_mode = true;
  bool sci_mode = false;
  int max_width = 1;

  std::string format(double v) const {
    std::string s;
    if (!floating) {
      s = std::to_string(static_cast<int64_t>(v));
    } else if (sci_mode) {
      s = py_format(v, 'e', max_width);
    } else if (int_mode) {
      s = py_format(v, '0');
      if (std::isfinite(v)) s += ".";
    } else {
      s = py_format(v, 'f');
    }
    if (static_cast<int>(s.size()) < max_width) s.insert(0, max_width - s.size(), ' ');
    return s;
  }
};

// The values of one tensor as doubles (float32 or int64 exactly representable for our sizes).
struct View {
  bool floating = true;
  const float* f = nullptr;
  const int64_t* i = nullptr;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  double at(int64_t off) const {
    return floating ? static_cast<double>(f[off]) : static_cast<double>(i[off]);
  }
};

// Indices of dimension d that are shown (all, or the first and last kEdgeItems).
std::vector<int64_t> shown(int64_t n, bool summarize) {
  std::vector<int64_t> idx;
  if (summarize && n > 2 * kEdgeItems) {
    for (int64_t k = 0; k < kEdgeItems; ++k) idx.push_back(k);
    for (int64_t k = n - kEdgeItems; k < n; ++k) idx.push_back(k);
  } else {
    for (int64_t k = 0; k < n; ++k) idx.push_back(k);
  }
  return idx;
}

// Every value that is shown, in order (torch's get_summarized_data).
void collect(const View& v, bool summarize, int d, int64_t off, std::vector<double>& out) {
  if (d == static_cast<int>(v.shape.size())) {
    out.push_back(v.at(off));
    return;
  }
  for (int64_t k : shown(v.shape[d], summarize))
    collect(v, summarize, d + 1, off + k * v.strides[d], out);
}

Formatter make_formatter(const std::vector<double>& vals, bool floating) {
  Formatter fm;
  fm.floating = floating;
  if (!floating) {
    for (double x : vals)
      fm.max_width = std::max(fm.max_width, static_cast<int>(fm.format(x).size()));
    return fm;
  }
  std::vector<double> nz;  // nonzero finite values
  for (double x : vals)
    if (std::isfinite(x) && x != 0.0) nz.push_back(x);
  if (nz.empty()) return fm;
  double mn = std::fabs(nz[0]), mx = mn;
  for (double x : nz) {
    mn = std::min(mn, std::fabs(x));
    mx = std::max(mx, std::fabs(x));
    // float32 values: ceil in float equals ceil in double.
    if (x != std::ceil(x)) fm.int_mode = false;
  }
  auto widen = [&](const std::string& s, int extra) {
    fm.max_width = std::max(fm.max_width, static_cast<int>(s.size()) + extra);
  };
  if (fm.int_mode) {
    if (mx / mn > 1000.0 || mx > 1.0e8) {
      fm.sci_mode = true;
      for (double x : nz) widen(py_format(x, 'e'), 0);
    } else {
      for (double x : nz) widen(py_format(x, '0'), 1);
    }
  } else if (mx / mn > 1000.0 || mx > 1.0e8 || mn < 1.0e-4) {
    fm.sci_mode = true;
    for (double x : nz) widen(py_format(x, 'e'), 0);
  } else {
    for (double x : nz) widen(py_format(x, 'f'), 0);
  }
  return fm;
}

std::string vector_str(const View& v, const Formatter& fm, bool summarize, int indent,
                       int64_t off) {
  const int64_t n = v.shape.back();
  const int64_t stride = v.strides.back();
  const int element_length = fm.max_width + 2;
  const int per_line = std::max(1, (kLineWidth - indent) / element_length);
  std::vector<std::string> data;
  const bool cut = summarize && n > 2 * kEdgeItems;
  for (int64_t k : shown(n, summarize)) {
    if (cut && k == n - kEdgeItems) data.push_back(" ...");
    data.push_back(fm.format(v.at(off + k * stride)));
  }
  std::string s = "[";
  for (size_t k = 0; k < data.size(); ++k) {
    if (k > 0 && k % per_line == 0) {
      s += ",\n";
      s.append(indent + 1, ' ');
    } else if (k > 0) {
      s += ", ";
    }
    s += data[k];
  }
  return s + "]";
}

std::string tensor_str(const View& v, const Formatter& fm, bool summarize, int d, int indent,
                       int64_t off) {
  const int dims_left = static_cast<int>(v.shape.size()) - d;
  if (dims_left == 0) return fm.format(v.at(off));
  if (dims_left == 1) return vector_str(v, fm, summarize, indent, off);
  const int64_t n = v.shape[d];
  const bool cut = summarize && n > 2 * kEdgeItems;
  std::vector<std::string> slices;
  for (int64_t k : shown(n, summarize)) {
    if (cut && k == n - kEdgeItems) slices.push_back("...");
    slices.push_back(tensor_str(v, fm, summarize, d + 1, indent + 1, off + k * v.strides[d]));
  }
  std::string sep = ",";
  sep.append(dims_left - 1, '\n');
  sep.append(indent + 1, ' ');
  std::string s = "[";
  for (size_t k = 0; k < slices.size(); ++k) {
    if (k) s += sep;
    s += slices[k];
  }
  return s + "]";
}

std::string format_view(View v) {
  int64_t numel = 1;
  for (int64_t s : v.shape) {
    SG_CHECK(s >= 0, "format_tensor: negative dimension ", s);
    numel *= s;
  }
  v.strides.assign(v.shape.size(), 1);
  for (int d = static_cast<int>(v.shape.size()) - 2; d >= 0; --d)
    v.strides[d] = v.strides[d + 1] * v.shape[d + 1];
  const int indent = 7;  // strlen("tensor(")
  if (numel == 0) {
    // torch: "tensor([])", and for shapes other than (0,) a size suffix.
    std::string s = "tensor([]";
    if (!(v.shape.size() == 1 && v.shape[0] == 0)) {
      s += ", size=(";
      for (size_t k = 0; k < v.shape.size(); ++k) s += (k ? ", " : "") + std::to_string(v.shape[k]);
      s += v.shape.size() == 1 ? ",)" : ")";
    }
    return s + (v.floating ? ")" : ", dtype=torch.int64)");
  }
  const bool summarize = numel > kThreshold;
  std::vector<double> vals;
  collect(v, summarize, 0, 0, vals);
  const Formatter fm = make_formatter(vals, v.floating);
  return "tensor(" + tensor_str(v, fm, summarize, 0, indent, 0) + ")";
}

}  // namespace

std::string format_tensor(const float* data, const std::vector<int64_t>& shape) {
  View v;
  v.f = data;
  v.shape = shape;
  return format_view(v);
}

std::string format_tensor(const int64_t* data, const std::vector<int64_t>& shape) {
  View v;
  v.floating = false;
  v.i = data;
  v.shape = shape;
  return format_view(v);
}

std::string format_tensor(const Tensor& t) {
  return format_tensor(t.data, std::vector<int64_t>(t.shape.begin(), t.shape.begin() + t.rank));
}

std::string format_scalar(float value) { return format_tensor(&value, {}); }

std::string format_size(const std::vector<int64_t>& shape) {
  std::string s = "torch.Size([";
  for (size_t k = 0; k < shape.size(); ++k) s += (k ? ", " : "") + std::to_string(shape[k]);
  return s + "])";
}

}  // namespace scratchgpt
