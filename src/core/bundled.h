// bundled.h: finds a file or folder the repo ships (data/tinyshakespeare.txt, data/gpt2/): under
// the current directory and its parents, then under the source tree this binary was built from.
// Leaves out: install prefixes (the binary runs from its build tree).
#pragma once

#include <string>

namespace scratchgpt {

// The path of rel (e.g. "data/gpt2"), or "" when none exists.
std::string find_bundled(const std::string& rel);

}  // namespace scratchgpt
