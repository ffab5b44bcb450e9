// JUnit XML and GitHub workflow commands word for word, and every format's
// input errors byte for byte (SARIF's are in sarif_test.cc).
#include <catch2/catch.hpp>
#include <sstream>
#include <string>

#include "lint/output/formats.h"
#include "lint/output/output.h"

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
  Driver& Fail(const Error& e) {
    writer_->AddError(e);
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

// Input errors as `gpulint check` meets them: one before any file (a path
// that does not exist), one for the file being read (a chart that does not
// render), one with a position (a policy), one on stdin, one with no file.
const Error kMissing{"k8s/missing.yaml", {}, "no such file or directory"};
const Error kRender{
    "chart", {}, "helm template failed (exit status 1): Error: parse error, line 3"};
const Error kPolicy{"k8s/.gpulint.yaml", {4, 13}, "did not find expected ',' or ']'"};
const Error kStdin{"<stdin>", {}, "read failed: is a directory"};
const Error kNoFile{"", {}, "no manifests found (no PATH given)"};

Driver& WithErrors(Driver& d) {
  return d.Fail(kMissing)
      .File("chart")
      .Object({"v1", "Pod", "", "p"}, {1, 1}, "chart/templates/pod.yaml")
      .Fail(kRender)
      .Fail(kPolicy)
      .Fail(kStdin)
      .Fail(kNoFile);
}

TEST_CASE("junit: an input error is a case with an <error>, in its file's suite",
          "[output][junit][input-error]") {
  Driver d("junit");
  CHECK(WithErrors(d).Finish() ==
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<testsuites name=\"gpulint\">\n"
        "  <testsuite name=\"k8s/missing.yaml\" tests=\"1\" failures=\"0\" errors=\"1\" "
        "skipped=\"0\">\n"
        "    <testcase name=\"input error\" classname=\"k8s/missing.yaml\">\n"
        "      <error type=\"input-error\" message=\"no such file or directory\">"
        "k8s/missing.yaml: no such file or directory</error>\n"
        "    </testcase>\n"
        "  </testsuite>\n"
        "  <testsuite name=\"chart\" tests=\"2\" failures=\"0\" errors=\"1\" skipped=\"0\">\n"
        "    <testcase name=\"Pod/p\" classname=\"chart/templates/pod.yaml\"/>\n"
        "    <testcase name=\"input error\" classname=\"chart\">\n"
        "      <error type=\"input-error\" message=\"helm template failed (exit status 1): Error: "
        "parse error, line 3\">chart: helm template failed (exit status 1): Error: parse error, "
        "line 3</error>\n"
        "    </testcase>\n"
        "  </testsuite>\n"
        "  <testsuite name=\"k8s/.gpulint.yaml\" tests=\"1\" failures=\"0\" errors=\"1\" "
        "skipped=\"0\">\n"
        "    <testcase name=\"input error at line 4\" classname=\"k8s/.gpulint.yaml\">\n"
        "      <error type=\"input-error\" message=\"did not find expected &apos;,&apos; or "
        "&apos;]&apos;\">k8s/.gpulint.yaml:4:13: did not find expected ',' or ']'</error>\n"
        "    </testcase>\n"
        "  </testsuite>\n"
        "  <testsuite name=\"&lt;stdin&gt;\" tests=\"1\" failures=\"0\" errors=\"1\" "
        "skipped=\"0\">\n"
        "    <testcase name=\"input error\" classname=\"&lt;stdin&gt;\">\n"
        "      <error type=\"input-error\" message=\"read failed: is a directory\">&lt;stdin&gt;: "
        "read failed: is a directory</error>\n"
        "    </testcase>\n"
        "  </testsuite>\n"
        "  <testsuite name=\"gpulint\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\">\n"
        "    <testcase name=\"input error\" classname=\"gpulint\">\n"
        "      <error type=\"input-error\" message=\"no manifests found (no PATH given)\">"
        "no manifests found (no PATH given)</error>\n"
        "    </testcase>\n"
        "  </testsuite>\n"
        "</testsuites>\n");
}

TEST_CASE("github: an input error is an ::error titled gpulint", "[output][github][input-error]") {
  Driver d("github");
  CHECK(WithErrors(d).Fail({"dir,a:b%.yaml", {2, 0}, "bad:\nvalue, 100%"}).Finish() ==
        "::error file=k8s/missing.yaml,title=gpulint::no such file or directory\n"
        "::error file=chart,title=gpulint::helm template failed (exit status 1): Error: parse "
        "error, line 3\n"
        "::error file=k8s/.gpulint.yaml,line=4,col=13,title=gpulint::did not find expected ',' "
        "or ']'\n"
        "::error title=gpulint::<stdin>: read failed: is a directory\n"
        "::error title=gpulint::no manifests found (no PATH given)\n"
        "::error file=dir%2Ca%3Ab%25.yaml,line=2,title=gpulint::bad:%0Avalue, 100%25\n");
}

TEST_CASE("json: input errors are the \"errors\" list, one per line",
          "[output][json][input-error]") {
  Driver d("json");
  CHECK(WithErrors(d).Finish() ==
        "{\"findings\":[],\"errors\":[\n"
        "{\"message\":\"no such file or directory\",\"file\":\"k8s/missing.yaml\",\"line\":0,"
        "\"column\":0},\n"
        "{\"message\":\"helm template failed (exit status 1): Error: parse error, line 3\","
        "\"file\":\"chart\",\"line\":0,\"column\":0},\n"
        "{\"message\":\"did not find expected ',' or ']'\",\"file\":\"k8s/.gpulint.yaml\","
        "\"line\":4,\"column\":13},\n"
        "{\"message\":\"read failed: is a directory\",\"file\":\"<stdin>\",\"line\":0,"
        "\"column\":0},\n"
        "{\"message\":\"no manifests found (no PATH given)\",\"file\":\"\",\"line\":0,"
        "\"column\":0}\n"
        "],\"summary\":{\"errors\":0,\"warnings\":0,\"infos\":0,\"objects\":0,\"files\":0,"
        "\"checked\":0,\"notChecked\":0}}\n");
  // A clean run: an empty list, so a reader need not test for the key.
  Driver clean("json");
  CHECK(clean.Finish() ==
        "{\"findings\":[],\"errors\":[],\"summary\":{\"errors\":0,\"warnings\":0,\"infos\":0,"
        "\"objects\":0,\"files\":0,\"checked\":0,\"notChecked\":0}}\n");
}

TEST_CASE("text: input errors are not on stdout (the caller puts them on stderr)",
          "[output][input-error]") {
  Driver d("text");
  CHECK(WithErrors(d).Finish().empty());
}

}  // namespace
}  // namespace gpulint
