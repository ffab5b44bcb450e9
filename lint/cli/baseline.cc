#include "lint/cli/baseline.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <tuple>

#include "engine/yaml/loader.h"
#include "lint/input/policy_discovery.h"
#include "lint/input/setup.h"
#include "lint/output/atomic_write.h"
#include "lint/output/fingerprint.h"

namespace gpulint {
namespace {

// Far above any repository's findings (a finding is some 300 bytes), and a
// bound on what a wrong path can make us read.
constexpr size_t kMaxBaselineBytes = 256u << 20;

std::string ObjectText(const ObjectRef& o) {
  if (o.kind.empty() && o.name.empty()) return "";
  std::string out = o.kind;
  if (!o.namespace_name.empty()) out += "/" + o.namespace_name;
  return out + "/" + o.name;
}

void AppendMember(std::string_view key, std::string_view value, std::string* out) {
  AppendJsonString(key, out);
  out->append(": ");
  AppendJsonString(value, out);
}

class Reader {
 public:
  Reader(const std::string& name, Error* error) : name_(name), error_(error) {}

  bool Fail(const Value& at, std::string message) {
    *error_ = Error{name_, at.mark(), std::move(message)};
    return false;
  }

  bool Read(const Value& root, std::unordered_map<std::string, size_t>* out, size_t* size,
            int* read_version) {
    constexpr char kShape[] =
        "a baseline is a JSON object {\"version\": 2, \"findings\": [...]}, as 'gpulint "
        "baseline' writes it";
    if (!root.is_mapping()) return Fail(root, kShape);
    const Value* version = root.Find("version");
    if (version == nullptr) return Fail(root, std::string("no \"version\": ") + kShape);
    if (version->type() != Value::Type::kInt)
      return Fail(*version, "\"version\" must be a number (2)");
    if (version->text() != "1" && version->text() != std::to_string(kBaselineVersion))
      return Fail(*version, "version " + version->text() +
                                " is not one this gpulint reads (1 or 2); regenerate the "
                                "baseline with 'gpulint baseline'");
    *read_version = std::stoi(version->text());
    const Value* findings = root.Find("findings");
    if (findings == nullptr) return Fail(root, std::string("no \"findings\": ") + kShape);
    if (!findings->is_sequence()) return Fail(*findings, "\"findings\" must be an array");
    for (size_t i = 0; i < findings->items().size(); ++i) {
      const Value& item = findings->items()[i];
      std::string where = "findings[" + std::to_string(i) + "]";
      if (!item.is_mapping()) return Fail(item, where + " must be an object");
      const Value* fingerprint = item.Find("fingerprint");
      if (fingerprint == nullptr)
        return Fail(item, where + " has no \"fingerprint\", which is what is matched");
      if (!fingerprint->is_string() || fingerprint->text().empty())
        return Fail(*fingerprint, where + ".fingerprint must be a non-empty string");
      for (const auto& [key, value] : item.members())
        if (!value.is_string()) return Fail(value, where + "." + key + " must be a string");
      ++(*out)[fingerprint->text()];
      ++*size;
    }
    return true;
  }

 private:
  const std::string& name_;
  Error* error_;
};

}  // namespace

std::string BaselineRoot(const std::string& path, const std::string& cwd) {
  namespace fs = std::filesystem;
  fs::path dir = path.empty() || path == "-" ? fs::path(cwd) : (fs::path(cwd) / path).parent_path();
  std::error_code ec;
  fs::path real = fs::weakly_canonical(dir, ec);
  if (!ec) dir = real;
  dir = dir.lexically_normal();
  if (!dir.has_filename() && dir != dir.root_path()) dir = dir.parent_path();
  fs::path root = RepositoryRoot(dir);
  return (root.empty() ? dir : root).string();
}

BaselineEntry BaselineEntryOf(const Finding& f, std::string file) {
  return {f.fingerprint, f.rule, std::move(file), ObjectText(f.object), f.message};
}

std::string BaselineText(std::vector<BaselineEntry> entries) {
  std::sort(entries.begin(), entries.end(), [](const BaselineEntry& a, const BaselineEntry& b) {
    return std::tie(a.file, a.object, a.rule, a.message, a.fingerprint) <
           std::tie(b.file, b.object, b.rule, b.message, b.fingerprint);
  });
  std::string out = "{\n  \"version\": " + std::to_string(kBaselineVersion) + ",\n";
  out += "  \"findings\": [";
  bool first = true;
  for (const BaselineEntry& e : entries) {
    out += first ? "\n    {" : ",\n    {";
    first = false;
    AppendMember("fingerprint", e.fingerprint, &out);
    out += ", ";
    AppendMember("rule", e.rule, &out);
    out += ", ";
    AppendMember("file", e.file, &out);
    out += ", ";
    AppendMember("object", e.object, &out);
    out += ", ";
    AppendMember("message", e.message, &out);
    out += "}";
  }
  out += first ? "]\n}\n" : "\n  ]\n}\n";
  return out;
}

bool Baseline::Load(const std::string& path, int stdin_fd, const std::string& cwd, Error* error) {
  std::string text;
  if (!ReadWhole(path, stdin_fd, kMaxBaselineBytes, &text, error) ||
      !Parse(text, DisplayName(path), error))
    return false;
  root_ = version_ == 1 ? cwd : BaselineRoot(path, cwd);
  return true;
}

bool Baseline::Parse(std::string_view text, const std::string& name, Error* error) {
  LoadLimits limits;
  limits.max_document_bytes = kMaxBaselineBytes;
  size_t documents = 0;
  bool ok = true;
  Value root;
  bool loaded = LoadYamlString(
      text, name, limits,
      [&](Document&& doc) {
        if (++documents > 1) {
          *error =
              Error{name, doc.start, "a baseline is one JSON object; this is a second document"};
          ok = false;
          return false;
        }
        if (!doc.ok) {
          *error = doc.error;
          ok = false;
          return false;
        }
        root = std::move(doc.root);
        return true;
      },
      error);
  if (!loaded || !ok) return false;
  if (documents == 0) {
    *error = Error{name, {}, "empty; 'gpulint baseline' writes a baseline"};
    return false;
  }
  remaining_.clear();
  size_ = 0;
  return Reader(name, error).Read(root, &remaining_, &size_, &version_);
}

bool Baseline::Hide(const std::string& fingerprint) {
  auto it = remaining_.find(fingerprint);
  if (it == remaining_.end() || it->second == 0) return false;
  --it->second;
  return true;
}

bool WriteBaselineFile(const std::string& path, std::string_view text, std::string* error) {
  // WriteFileAtomically replaces a file; a first baseline has none yet, so an
  // empty one is made to be replaced, and removed again if that fails.
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  bool created = fd >= 0;
  if (created) {
    close(fd);
  } else if (errno != EEXIST) {
    *error = "cannot write " + path + ": " + std::strerror(errno);
    return false;
  }
  if (WriteFileAtomically(path, text, error)) return true;
  if (created) unlink(path.c_str());
  return false;
}

}  // namespace gpulint
