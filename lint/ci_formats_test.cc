// JUnit XML and GitHub workflow commands, word for word.
#include <catch2/catch.hpp>
#include <sstream>
#include <string>

#include "lint/formats.h"
#include "lint/output.h"

namespace gpulint {
namespace {

Finding MakeFinding(std::string rule, Severity severity, std::string message, Mark mark,
                    const std::string& file = "k8s/pod.yaml") {
  Finding f;
  f.rule = std::move(rule);
  f.severity = severity;
  f.message = std::move(message);
  f.file = file;
  f.mark = mark;
  return f;
}

// Drives a writer as `gpulint check` does: files, objects, findings.
class Driver {
 public:
  Driver(std::string_view format, Severity fail_on = Severity::kError) {
    WriterOptions options;
    options.fail_on = fail_on;
    REQUIRE(FindOutputFormat(format) != nullptr);
    writer_ = FindOutputFormat(format)->make(options, out_);
  }
  Driver& File(const std::string& file) {
    writer_->BeginFile(file);
    return *this;
  }
  Driver& Object(ObjectRef ref, Mark mark, const std::string& file = "k8s/pod.yaml") {
    writer_->BeginObject(ref, file, mark);
    return *this;
  }
  Driver& Add(const Finding& f) {
    writer_->Add(f);
    return *this;
  }
  std::string Finish() {
    writer_->Finish(Summary());
    writer_.reset();
    return out_.str();
  }

 private:
  std::ostringstream out_;
  std::unique_ptr<FindingWriter> writer_;
};

TEST_CASE("junit: a suite per file, a case per object, failures at or above --fail-on",
          "[output][junit]") {
  std::string xml =
      Driver("junit", Severity::kWarning)
          .File("k8s/pod.yaml")
          .Object({"v1", "Pod", "ml", "train"}, {1, 1})
          .Add(MakeFinding("gpu-fractional", Severity::kError, "half a GPU", {11, 25}))
          .Add(MakeFinding("removed-annotation", Severity::kWarning, "old", {5, 5}))
          .Add(MakeFinding("quantity-milli-memory", Severity::kInfo, "tiny", {12, 3}))
          .Object({"apps/v1", "Deployment", "", "web"}, {20, 1})
          .Object({"v1", "Pod", "", ""}, {30, 1})
          .File("empty.yaml")
          .Finish();
  CHECK(xml ==
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<testsuites name=\"gpulint\">\n"
        "  <testsuite name=\"k8s/pod.yaml\" tests=\"3\" failures=\"1\" errors=\"0\" "
        "skipped=\"0\">\n"
        "    <testcase name=\"Pod/ml/train\" classname=\"k8s/pod.yaml\">\n"
        "      <failure type=\"gpu-fractional\" message=\"half a GPU\">k8s/pod.yaml:11:25: "
        "error: half a GPU [gpu-fractional]\n</failure>\n"
        "      <failure type=\"removed-annotation\" message=\"old\">k8s/pod.yaml:5:5: warning: "
        "old [removed-annotation]\n</failure>\n"
        "      <system-out>k8s/pod.yaml:12:3: info: tiny [quantity-milli-memory]\n"
        "</system-out>\n"
        "    </testcase>\n"
        "    <testcase name=\"Deployment/web\" classname=\"k8s/pod.yaml\"/>\n"
        "    <testcase name=\"Pod at line 30\" classname=\"k8s/pod.yaml\"/>\n"
        "  </testsuite>\n"
        "  <testsuite name=\"empty.yaml\" tests=\"0\" failures=\"0\" errors=\"0\" "
        "skipped=\"0\">\n"
        "  </testsuite>\n"
        "</testsuites>\n");
}

TEST_CASE("junit: findings below --fail-on are output, not failures", "[output][junit]") {
  std::string xml =
      Driver("junit")
          .File("a.yaml")
          .Object({"v1", "Pod", "", "p"}, {1, 1}, "a.yaml")
          .Add(MakeFinding("removed-annotation", Severity::kWarning, "old", {2, 3}, "a.yaml"))
          .Finish();
  CHECK(xml.find("<failure") == std::string::npos);
  CHECK(xml.find("failures=\"0\"") != std::string::npos);
  CHECK(xml.find("<system-out>a.yaml:2:3: warning: old [removed-annotation]\n</system-out>") !=
        std::string::npos);
}

TEST_CASE("junit: a document that does not parse is a failing case of its own", "[output][junit]") {
  std::string xml = Driver("junit")
                        .File("bad.yaml")
                        .Object({}, {4, 2}, "bad.yaml")
                        .Add(MakeFinding("parse-error", Severity::kError,
                                         "did not find expected key", {4, 2}, "bad.yaml"))
                        .Finish();
  CHECK(xml.find("<testcase name=\"document at line 4\" classname=\"bad.yaml\">\n"
                 "      <failure type=\"parse-error\"") != std::string::npos);
}

TEST_CASE("junit: XML escaping in attributes and text", "[output][junit]") {
  std::string message = "a<b & \"c\" 'd' >e\nnext\tline\x01 \xFF end";
  std::string xml =
      Driver("junit")
          .File("we<ird>&\".yaml")
          .Object({"v1", "Pod", "n&s", "a\"b"}, {1, 1}, "we<ird>&\".yaml")
          .Add(MakeFinding("gpu-fractional", Severity::kError, message, {1, 1}, "x.yaml"))
          .Finish();
  CHECK(xml.find("<testsuite name=\"we&lt;ird&gt;&amp;&quot;.yaml\"") != std::string::npos);
  CHECK(xml.find("<testcase name=\"Pod/n&amp;s/a&quot;b\" "
                 "classname=\"we&lt;ird&gt;&amp;&quot;.yaml\">") != std::string::npos);
  // Attributes: quotes and line breaks escaped; control characters and
  // invalid UTF-8, which XML cannot carry, replaced.
  CHECK(xml.find("message=\"a&lt;b &amp; &quot;c&quot; &apos;d&apos; &gt;e&#10;next&#9;line"
                 "\xEF\xBF\xBD \xEF\xBF\xBD end\"") != std::string::npos);
  // Text: only what markup needs.
  CHECK(xml.find(">x.yaml:1:1: error: a&lt;b &amp; \"c\" 'd' &gt;e\nnext\tline\xEF\xBF\xBD "
                 "\xEF\xBF\xBD end [gpu-fractional]\n</failure>") != std::string::npos);
}

TEST_CASE("github: workflow commands with GitHub's escaping", "[output][github]") {
  std::string out =
      Driver("github")
          .Add(MakeFinding("gpu-fractional", Severity::kError, "half a GPU", {11, 25}))
          .Add(MakeFinding("removed-annotation", Severity::kWarning, "100% old:\r\nreally, yes",
                           {5, 0}, "dir,with:odd%chars.yaml"))
          .Add(MakeFinding("quantity-milli-memory", Severity::kInfo, "tiny", {0, 0}))
          .Add(MakeFinding("parse-error", Severity::kError, "bad", {2, 1}, "<stdin>"))
          .Finish();
  CHECK(out ==
        "::error file=k8s/pod.yaml,line=11,col=25,title=gpu-fractional::half a GPU\n"
        "::warning file=dir%2Cwith%3Aodd%25chars.yaml,line=5,title=removed-annotation::"
        "100%25 old:%0D%0Areally, yes\n"
        "::notice file=k8s/pod.yaml,title=quantity-milli-memory::tiny\n"
        "::error title=parse-error::bad\n");
}

}  // namespace
}  // namespace gpulint
