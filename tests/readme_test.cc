// The docs say what the tools do, and this holds them to it:
// - every command a doc shows in a ```console block is run, from the
//   repository root with the built binaries first on PATH, and prints what the
//   doc shows under it (exit status included, where it is not 0);
// - what is generated from the binary and checked in is current: the rule
//   reference in docs/rules.md (`gpulint rules --format markdown`), the
//   export list in docs/export.md (`gpulint export vap --list --format
//   markdown`), the policy's field reference in policies/README.md (`gpulint policy schema
//   --format markdown`), the chart's values schema for `policy`;
// - the README shows the commands that set up and test a clone, docs/ci.md's
//   jobs fail on an input error, and every relative link names a file (and a
//   heading) inside the repository.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/subprocess.h"
#include "tests/golden.h"

namespace gpulint::testing {
namespace {

namespace fs = std::filesystem;

std::string Run(const std::string& command) {
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
  CHECK(pclose(pipe) == 0);
  return out;
}

// The lines of `text`; a last line without its newline is a line too.
std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  for (size_t at = 0; at < text.size();) {
    size_t end = std::min(text.find('\n', at), text.size());
    lines.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  return lines;
}

bool StartsWith(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

// The text of `file` from the line after the one holding `begin` up to `end`.
std::string Between(const std::string& file, const std::string& begin, const std::string& end) {
  std::string text = ReadFile(SourceDir() + "/" + file);
  size_t b = text.find(begin);
  size_t e = text.find(end);
  REQUIRE(b != std::string::npos);
  REQUIRE(e != std::string::npos);
  b = text.find('\n', b) + 1;
  return text.substr(b, e - b);
}

// A command a doc shows after `$ `, and the lines shown under it.
struct ShownCommand {
  std::string where;  // FILE:LINE
  std::string command;
  std::vector<std::string> output;
};

// A fence line's text from its backticks on ("```console"), or "" for any
// other line. A fence may be indented, in a list item.
std::string Fence(const std::string& line) {
  size_t at = line.find_first_not_of(' ');
  return at != std::string::npos && line.compare(at, 3, "```") == 0 ? line.substr(at) : "";
}

// The ```console blocks of `text` (the doc `file`), each a list of commands,
// their lines without the fence's indent. A command's line may go on to the
// next after a trailing backslash.
std::vector<std::vector<ShownCommand>> ConsoleBlocks(const std::string& file,
                                                     const std::string& text) {
  std::vector<std::vector<ShownCommand>> blocks;
  std::vector<std::string> lines = Lines(text);
  for (size_t i = 0; i < lines.size(); ++i) {
    if (Fence(lines[i]) != "```console") continue;
    size_t indent = lines[i].find('`');
    auto line = [&](size_t n) {
      return lines[n].substr(std::min({indent, lines[n].find_first_not_of(' '), lines[n].size()}));
    };
    std::vector<ShownCommand>& block = blocks.emplace_back();
    for (++i; i < lines.size() && Fence(lines[i]).empty(); ++i) {
      std::string where = file + ":" + std::to_string(i + 1);
      if (StartsWith(line(i), "$ ")) {
        std::string command = line(i).substr(2);
        while (!command.empty() && command.back() == '\\' && i + 1 < lines.size())
          command += "\n" + line(++i);
        block.push_back({where, command, {}});
      } else {
        INFO(where << ": output before any `$ ` command");
        REQUIRE(!block.empty());
        block.back().output.push_back(line(i));
      }
    }
  }
  return blocks;
}

// Whether `actual` is the `shown` output, where a line holding only `...`
// stands for any number of lines (none too).
bool OutputMatches(const std::vector<std::string>& shown, const std::vector<std::string>& actual) {
  size_t s = 0, a = 0;
  size_t star = std::string::npos, resume = 0;  // the last `...` and where it took over
  while (a < actual.size()) {
    if (s < shown.size() && shown[s] == "...") {
      star = s++;
      resume = a;
    } else if (s < shown.size() && shown[s] == actual[a]) {
      ++s;
      ++a;
    } else if (star != std::string::npos) {
      s = star + 1;
      a = ++resume;
    } else {
      return false;
    }
  }
  while (s < shown.size() && shown[s] == "...") ++s;
  return s == shown.size();
}

std::string ShellQuote(const std::string& s) {
  std::string quoted = "'";
  for (char c : s) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// The directories of the built binaries, for the front of PATH.
std::string BinaryDirs() {
  std::string dirs = fs::path(GPULINT_BINARY).parent_path().string();
#ifdef GPULINT_WEBHOOK_BINARY
  dirs += ":" + fs::path(GPULINT_WEBHOOK_BINARY).parent_path().string();
#endif
  return dirs;
}

// Runs a shown command as a user's shell would after the one before it: from
// the repository root, stderr beside stdout, `$?` that command's status.
ToolRun RunShown(const std::string& command, int previous_status) {
  std::string script = "exec 2>&1; cd " + ShellQuote(SourceDir()) +
                       " || exit 99; PATH=" + ShellQuote(BinaryDirs()) +
                       ":\"$PATH\"; unset GPULINT_POLICY; (exit " +
                       std::to_string(previous_status) + "); " + command;
  ToolLimits limits;
  limits.timeout = std::chrono::seconds(60);
  ToolRun run;
  std::string error;
  INFO(error);
  REQUIRE(RunTool({"/bin/bash", "-c", script}, limits, &run, &error));
  return run;
}

// README.md, the reference docs and policies/README.md: the docs a user reads.
std::vector<std::string> UserDocs() {
  std::vector<std::string> docs = {"README.md", "policies/README.md"};
  std::vector<std::string> pages;
  for (const auto& entry : fs::directory_iterator(SourceDir() + "/docs"))
    if (entry.path().extension() == ".md")
      pages.push_back("docs/" + entry.path().filename().string());
  std::sort(pages.begin(), pages.end());
  docs.insert(docs.end(), pages.begin(), pages.end());
  return docs;
}

// The lines of a Markdown text outside its fenced code blocks, by number.
std::vector<std::pair<size_t, std::string>> ProseLines(const std::string& text) {
  std::vector<std::pair<size_t, std::string>> prose;
  bool fenced = false;
  std::vector<std::string> lines = Lines(text);
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!Fence(lines[i]).empty()) {
      fenced = !fenced;
    } else if (!fenced) {
      prose.emplace_back(i + 1, lines[i]);
    }
  }
  return prose;
}

// GitHub's anchor for a heading: lower case, spaces as '-', punctuation
// dropped (bytes of other scripts are kept, as their letters are).
std::string Anchor(const std::string& heading) {
  std::string anchor;
  for (unsigned char c : heading) {
    if (std::isalnum(c) || c == '-' || c == '_' || c >= 0x80) {
      anchor += static_cast<char>(std::tolower(c));
    } else if (c == ' ') {
      anchor += '-';
    }
  }
  return anchor;
}

std::set<std::string> Anchors(const std::string& markdown) {
  std::set<std::string> anchors;
  for (const auto& [number, line] : ProseLines(markdown)) {
    size_t level = line.find_first_not_of('#');
    if (level > 0 && level != std::string::npos && line[level] == ' ')
      anchors.insert(Anchor(line.substr(level + 1)));
  }
  return anchors;
}

// Every Markdown file of the tree, relative to it, less build directories
// and hidden ones (.git, .cache).
std::vector<std::string> MarkdownFiles() {
  std::vector<std::string> files;
  fs::path root = SourceDir();
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator();
       ++it) {
    std::string name = it->path().filename().string();
    if (it->is_directory() &&
        (StartsWith(name, ".") || (it.depth() == 0 && StartsWith(name, "build")))) {
      it.disable_recursion_pending();
    } else if (it->is_regular_file() && it->path().extension() == ".md") {
      files.push_back(it->path().lexically_relative(root).string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

TEST_CASE("a shown output's '...' stands for any lines, and nothing else does", "[readme]") {
  std::vector<std::string> actual = {"a", "b", "c", "d"};
  CHECK(OutputMatches({"a", "b", "c", "d"}, actual));
  CHECK(OutputMatches({"..."}, actual));
  CHECK(OutputMatches({"...", "d"}, actual));
  CHECK(OutputMatches({"a", "...", "d"}, actual));
  CHECK(OutputMatches({"a", "b", "...", "c", "d"}, actual));
  CHECK(OutputMatches({"...", "b", "...", "d", "..."}, actual));
  CHECK(OutputMatches({}, {}));
  CHECK_FALSE(OutputMatches({"a", "b", "c"}, actual));  // a line left out
  CHECK_FALSE(OutputMatches({"a", "b", "c", "d", "e"}, actual));
  CHECK_FALSE(OutputMatches({"a", "b", "x", "d"}, actual));  // a line changed
  CHECK_FALSE(OutputMatches({"...", "c"}, actual));
  CHECK_FALSE(OutputMatches({"b", "..."}, actual));
  CHECK_FALSE(OutputMatches({"a ", "..."}, actual));  // spaces count
  CHECK_FALSE(OutputMatches({}, {"a"}));
}

TEST_CASE("console blocks: commands after '$ ', their output under them", "[readme]") {
  auto blocks = ConsoleBlocks("x.md",
                              "text\n```sh\n$ not run\n```\n```console\n$ a one \\\n  two\n"
                              "out 1\n\nout 2\n$ echo $?\n1\n```\n");
  REQUIRE(blocks.size() == 1);
  REQUIRE(blocks[0].size() == 2);
  CHECK(blocks[0][0].where == "x.md:6");
  CHECK(blocks[0][0].command == "a one \\\n  two");
  CHECK(blocks[0][0].output == std::vector<std::string>{"out 1", "", "out 2"});
  CHECK(blocks[0][1].command == "echo $?");
  CHECK(blocks[0][1].output == std::vector<std::string>{"1"});
  // In a list item: the fence's indent is not part of the lines.
  blocks = ConsoleBlocks("x.md", "- item\n\n  ```console\n  $ a\n    b\n\n  ```\n");
  REQUIRE(blocks.size() == 1);
  REQUIRE(blocks[0].size() == 1);
  CHECK(blocks[0][0].command == "a");
  CHECK(blocks[0][0].output == std::vector<std::string>{"  b", ""});
}

// What a doc shows is what a user gets. A command that exits with a status
// other than 0 is followed by `$ echo $?`, so the status is shown and checked.
TEST_CASE("every command the docs show prints what they show", "[readme]") {
  size_t readme_commands = 0;
  for (const std::string& doc : UserDocs()) {
    for (const auto& block : ConsoleBlocks(doc, ReadFile(SourceDir() + "/" + doc))) {
      int status = 0;
      for (size_t i = 0; i < block.size(); ++i) {
        const ShownCommand& shown = block[i];
        if (doc == "README.md") ++readme_commands;
        INFO(shown.where << ": $ " << shown.command);
        ToolRun run = RunShown(shown.command, status);
        REQUIRE_FALSE(run.timed_out);
        status = run.exit_status;
        std::vector<std::string> actual = Lines(run.out);
        INFO("it prints:\n" << run.out);
        CHECK(OutputMatches(shown.output, actual));
        bool shown_next = i + 1 < block.size() && block[i + 1].command == "echo $?";
        if (status != 0 && !shown_next)
          FAIL_CHECK("it exits " << status << ": show it, with `$ echo $?` next");
      }
    }
  }
  CHECK(readme_commands >= 3);
}

TEST_CASE("the rule reference is generated from the rules", "[readme]") {
  std::string generated = Run(std::string(GPULINT_BINARY) + " rules --format markdown");
  INFO("regenerate with: scripts/update-readme");
  CHECK(Between("docs/rules.md", "<!-- BEGIN RULES", "<!-- END RULES -->") == generated);
}

TEST_CASE("the export list is generated from the rules' declarations", "[readme][vap]") {
  std::string generated =
      Run(std::string(GPULINT_BINARY) + " export vap --list --format markdown");
  INFO("regenerate with: scripts/update-readme");
  CHECK(Between("docs/export.md", "<!-- BEGIN EXPORT TABLES", "<!-- END EXPORT TABLES -->") ==
        generated);
}

TEST_CASE("the policy's field reference is generated from the loader's table", "[readme][policy]") {
  std::string generated = Run(std::string(GPULINT_BINARY) + " policy schema --format markdown");
  INFO("regenerate with: scripts/update-readme");
  CHECK(Between("policies/README.md", "<!-- BEGIN POLICY FIELDS", "<!-- END POLICY FIELDS -->") ==
        generated);
}

TEST_CASE("the chart's values schema holds the generated policy schema", "[readme][policy]") {
  auto values =
      nlohmann::json::parse(ReadFile(SourceDir() + "/charts/gpulint-webhook/values.schema.json"));
  auto generated =
      nlohmann::json::parse(Run(std::string(GPULINT_BINARY) + " policy schema --values"));
  INFO("regenerate with: scripts/update-chart-schema");
  CHECK(values["properties"]["policy"] == generated);
}

TEST_CASE("README shows the commands that set up and test a clone", "[readme]") {
  std::string ci = ReadFile(SourceDir() + "/.ci/run");
  std::string readme = ReadFile(SourceDir() + "/README.md");
  CHECK(ci.find("./dev test") != std::string::npos);
  CHECK(readme.find("./dev test") != std::string::npos);
  CHECK(readme.find("./dev run") != std::string::npos);
  CHECK(readme.find(".ci/run") != std::string::npos);
}

// An empty SARIF log uploaded after a failed run closes every open alert:
// the jobs must let an input error fail them and still upload.
TEST_CASE("docs/ci.md's jobs do not hide failures", "[readme]") {
  // The jobs are the ```yaml blocks.
  std::string jobs;
  bool in_yaml = false;
  for (const std::string& line : Lines(ReadFile(SourceDir() + "/docs/ci.md"))) {
    if (!Fence(line).empty()) {
      in_yaml = Fence(line) == "```yaml";
    } else if (in_yaml) {
      jobs += line + "\n";
    }
  }
  CHECK(jobs.find("|| true") == std::string::npos);
  CHECK(jobs.find("continue-on-error") == std::string::npos);
  CHECK(jobs.find("if: always()") != std::string::npos);
  CHECK(jobs.find("when: always") != std::string::npos);
  // Each gpulint check of the jobs, pointed at a directory that is not there:
  // exit 2 for that (not for a usage error), whatever the format.
  size_t commands = 0;
  for (const std::string& line : Lines(jobs)) {
    size_t at = line.find("gpulint check ");
    if (at == std::string::npos) continue;
    std::string command = line.substr(at, std::min(line.find(" >"), line.find("  #")) - at);
    INFO(command);
    size_t dir = command.find(" k8s/");
    REQUIRE(dir != std::string::npos);
    std::string out = Run(std::string(GPULINT_BINARY) + command.substr(7, dir - 7) +
                          " /nonexistent/k8s/ 2>&1 >/dev/null; echo \"exit $?\"");
    CHECK(out ==
          "gpulint: error: /nonexistent/k8s/: no such file or directory\n"
          "gpulint: 0 errors, 0 warnings in 0 objects (0 files)\nexit 2\n");
    ++commands;
  }
  CHECK(commands == 3);
}

// The docs moved once; a link left behind, or one that leaves the repository
// (which must say what it is about itself), fails here.
TEST_CASE("every relative link in the docs names a file and heading of the repository",
          "[readme]") {
  fs::path root = SourceDir();
  size_t links = 0;
  for (const std::string& file : MarkdownFiles()) {
    for (const auto& [number, line] : ProseLines(ReadFile((root / file).string()))) {
      for (size_t at = line.find("]("); at != std::string::npos; at = line.find("](", at + 2)) {
        size_t end = line.find(')', at);
        if (end == std::string::npos) continue;
        std::string target = line.substr(at + 2, end - at - 2);
        if (target.find("://") != std::string::npos || StartsWith(target, "mailto:") ||
            target.find(' ') != std::string::npos)
          continue;
        ++links;
        INFO(file << ":" << number << ": " << target);
        size_t hash = target.find('#');
        std::string path = target.substr(0, hash);
        fs::path linked = path.empty() ? fs::path(file)
                                       : (fs::path(file).parent_path() / path).lexically_normal();
        CHECK_FALSE(StartsWith(linked.string(), ".."));
        if (!fs::exists(root / linked)) {
          FAIL_CHECK("no such file");
        } else if (hash != std::string::npos && linked.extension() == ".md") {
          CHECK(Anchors(ReadFile((root / linked).string())).count(target.substr(hash + 1)) == 1);
        }
      }
    }
  }
  CHECK(links > 50);
}

}  // namespace gpulint::testing
