// bundled.cpp: see bundled.h.
#include "core/bundled.h"

#include <filesystem>

namespace scratchgpt {

namespace fs = std::filesystem;

std::string find_bundled(const std::string& rel) {
  std::error_code ec;
  fs::path dir = fs::current_path(ec);
  for (int up = 0; !ec && up < 6; ++up) {
    if (fs::exists(dir / rel, ec)) return (dir / rel).string();
    if (!dir.has_parent_path() || dir.parent_path() == dir) break;
    dir = dir.parent_path();
  }
#ifdef SCRATCHGPT_SOURCE_DIR
  const fs::path src = fs::path(SCRATCHGPT_SOURCE_DIR) / rel;
  if (fs::exists(src, ec)) return src.string();
#endif
  return "";
}

}  // namespace scratchgpt
