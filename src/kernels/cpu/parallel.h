// parallel.h: how the elementwise and row-wise cpu:: kernels split work over the pool of their
// ExecContext (ex.workers()).
// for_chunks cuts [0, n) at fixed multiples of kChunk (never at thread-count-dependent places),
// so a vector loop's tail falls at the same elements with any thread count; small jobs run on
// the caller (waking the workers costs more than they would save). Header-only: both helpers are
// templates over the caller's loop body, so there is no parallel.cpp.
#pragma once

#include <cstdint>

#include "core/thread_pool.h"

namespace scratchgpt::cpu::detail {

inline constexpr int64_t kChunk = 16384;  // elements per task; a multiple of every vector width

// fn(begin, end) over [0, n) in chunks that start at multiples of kChunk.
template <typename Fn>
void for_chunks(ThreadPool& pool, int64_t n, const Fn& fn) {
  if (n <= 0) return;
  const int64_t chunks = (n + kChunk - 1) / kChunk;
  if (chunks == 1) return fn(int64_t{0}, n);
  pool.parallel_for(
      chunks, [&](int64_t b, int64_t e, int) { fn(b * kChunk, e * kChunk < n ? e * kChunk : n); });
}

// fn(row_begin, row_end) over `rows` rows of `cols` elements each; serial when the whole job is
// smaller than two chunks. Row results must not depend on the split (each row is independent).
template <typename Fn>
void for_rows(ThreadPool& pool, int64_t rows, int64_t cols, const Fn& fn) {
  if (rows <= 0) return;
  if (rows * cols < 2 * kChunk || rows == 1) return fn(int64_t{0}, rows);
  pool.parallel_for(rows, [&](int64_t b, int64_t e, int) { fn(b, e); });
}

}  // namespace scratchgpt::cpu::detail
