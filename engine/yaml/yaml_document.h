// One YAML document's text to a Value, from libyaml's events. Internal to the
// YAML loader, which cuts a stream into documents before calling this.
#ifndef GPULINT_ENGINE_YAML_YAML_DOCUMENT_H_
#define GPULINT_ENGINE_YAML_YAML_DOCUMENT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/base/finding.h"
#include "engine/base/value.h"
#include "engine/yaml/loader.h"

struct yaml_parser_s;

namespace gpulint {

// `text` holds one document (with its `---`/`...` markers and directives);
// `first_line` is the 0-based line of the file where it begins, added to every
// mark so that marks are positions in the file. On failure returns false with
// error->mark and error->message set (error->file is the caller's to fill).
// With `items`, the items of the root mapping's `items` sequence go there
// rather than into *root (see ItemSink).
bool ParseYamlDocument(std::string_view text, uint32_t first_line, const LoadLimits& limits,
                       const ItemSink* items, Value* root, Error* error);

// libyaml's error as a person should read it, positioned in the file.
Error LibyamlError(const yaml_parser_s& parser, std::string_view text, uint32_t first_line);

// "64 MiB", "16 KiB", "1000 bytes": a limit as a person would write it.
std::string ByteSizeText(size_t bytes);

}  // namespace gpulint

#endif  // GPULINT_ENGINE_YAML_YAML_DOCUMENT_H_
