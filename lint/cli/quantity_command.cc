// `gpulint quantity`: what a resource quantity is, exactly, in both unit
// systems: the tool for incident 1, where 500Gi was taken for 500 GB.
#include <ostream>

#include "engine/base/value.h"
#include "engine/quantity/quantity.h"
#include "lint/cli/commands.h"

namespace gpulint {
namespace {

constexpr std::string_view kHelp = R"(Usage: gpulint quantity [--format text|json] QUANTITY...

Reads each QUANTITY exactly as Kubernetes does and prints its exact value,
Kubernetes' canonical form and its size in both unit systems (decimal kB MB
GB: powers of 1000; binary KiB MiB GiB: powers of 1024), or why Kubernetes
would refuse it and what was probably meant.

Options:
  --format FORMAT   text (default): one line per quantity
                    json: an array with one object per quantity:
                      {"input", "valid", "error", "canonical", "value"}
                    where value is the exact value as a plain decimal string
                    ("536870912000", "0.0015") and error is null when valid
  -h, --help        print this text

Examples:
  $ gpulint quantity 500Gi 500G
  500Gi = 536870912000 bytes = 536.9 GB = 500 GiB
  500G = 500000000000 bytes = 500 GB = 465.7 GiB
  $ gpulint quantity 500GB
  500GB is not a valid quantity: unknown suffix "GB" (Kubernetes units have
  no "B"); did you mean 500G (...) or 500Gi (...)?
  $ gpulint quantity --format json 1.5Gi -- -1
  $ kubectl get pod x -o jsonpath='{..memory}' | xargs gpulint quantity

Exit status: 0 when every QUANTITY is valid, 1 when one is not, 2 on a usage
error.
)";

// "536870912000 bytes = 536.9 GB = 500 GiB" from FormatBytes's
// "536870912000 B = ...".
std::string InBytes(const Quantity& q) {
  std::string exact = q.ExactDecimal();
  return exact + " bytes" + FormatBytes(q).substr(exact.size() + 2);
}

std::string Explain(std::string_view input, const Quantity& q) {
  std::string line = std::string(input) + " = ";
  if (q.is_whole()) {
    line += InBytes(q);
  } else {
    line += q.ExactDecimal() + " (not a whole number: fine for CPU, but memory and GPUs count " +
            "whole units)";
    if (input.size() > 1 && input.back() == 'm') {
      std::string stem(input.substr(0, input.size() - 1));
      Quantity mega, mebi;
      if (Quantity::Parse(stem + "M", &mega, nullptr) &&
          Quantity::Parse(stem + "Mi", &mebi, nullptr))
        line += "; as memory, did you mean " + stem + "M (" + FormatBytes(mega) + ") or " + stem +
                "Mi (" + FormatBytes(mebi) + ")?";
    }
  }
  std::string canonical = q.Canonical();
  if (canonical != input) line += "; Kubernetes writes it " + canonical;
  Quantity stored = q.Stored();
  if (stored != q) line += "; stored for a container as " + stored.Canonical();
  if (q.sign() < 0) line += "; negative: the API server refuses negative resource values";
  return line;
}

std::string ErrorText(const QuantityError& error) {
  return error.suggestion.empty() ? error.message : error.message + "; " + error.suggestion;
}

void AppendJson(std::string_view input, bool valid, const Quantity& q, const QuantityError& error,
                std::string* out) {
  out->append("{\"input\":");
  AppendJsonString(input, out);
  out->append(valid ? ",\"valid\":true,\"error\":null,\"canonical\":"
                    : ",\"valid\":false,\"error\":");
  if (valid) {
    AppendJsonString(q.Canonical(), out);
    out->append(",\"value\":");
    AppendJsonString(q.ExactDecimal(), out);
  } else {
    AppendJsonString(ErrorText(error), out);
    out->append(",\"canonical\":null,\"value\":null");
  }
  out->push_back('}');
}

int Run(const std::vector<std::string>& args, CliIo& io) {
  ParsedArgs parsed;
  // "-1" is a quantity here, not an option.
  if (int rc = ParseOrExit(args, QuantityCommand(), &parsed, io); rc >= 0) return rc;
  std::string format = parsed.Get("--format", "text");
  if (format != "text" && format != "json") {
    Fail(io, "--format: unknown format '" + format + "' (choose text or json)");
    return kExitUsage;
  }
  if (parsed.positional.empty()) {
    Fail(io, "quantity needs a QUANTITY, e.g. 'gpulint quantity 500Gi'");
    return kExitUsage;
  }
  bool json = format == "json";
  bool all_valid = true;
  std::string out = json ? "[" : "";
  for (size_t i = 0; i < parsed.positional.size(); ++i) {
    const std::string& input = parsed.positional[i];
    Quantity q;
    QuantityError error;
    bool valid = Quantity::Parse(input, &q, &error);
    all_valid = all_valid && valid;
    if (json) {
      out += i == 0 ? "\n" : ",\n";
      AppendJson(input, valid, q, error, &out);
    } else if (valid) {
      out += Explain(input, q) + "\n";
    } else {
      out += (input.empty() ? std::string("\"\"") : input) +
             " is not a valid quantity: " + ErrorText(error) + "\n";
    }
  }
  if (json) out += "\n]\n";
  io.out << out;
  return all_valid ? kExitClean : kExitFindings;
}

}  // namespace

const Command& QuantityCommand() {
  static const Command command{
      "quantity", kHelp, Run, {{"--format", "", true, false, "text json"}}, {}, true};
  return command;
}

}  // namespace gpulint
