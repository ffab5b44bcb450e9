#include "lint/input/scratch_dir.h"

#include <stdlib.h>

#include <string>
#include <system_error>

namespace gpulint {

namespace fs = std::filesystem;

ScratchDir::ScratchDir() {
  std::error_code ec;
  std::string pattern = (fs::temp_directory_path(ec) / "gpulint-render.XXXXXX").string();
  if (!ec && mkdtemp(pattern.data())) path_ = pattern;
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  if (!path_.empty()) fs::remove_all(path_, ec);
}

}  // namespace gpulint
