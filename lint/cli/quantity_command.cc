// `gpulint quantity`: what a resource quantity is, exactly, in both unit
// systems: the tool for incident 1, where 500Gi was taken for 500 GB.
#include <ostream>

#include "engine/base/value.h"
#include "engine/quantity/quantity.h"
#include "engine/quantity/quantity_apiserver.h"
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

// A value the API server accepts. `q` is the engine's reading of it, null
// past what the engine evaluates (10^29 and more).
std::string Explain(std::string_view written, const ApiServerReading& r, const Quantity* q) {
  std::string_view input = TrimGoSpace(written);
  std::string line = std::string(input) + " = ";
  if (!q) {
    line += r.value + " (far beyond any node)";
  } else if (q->is_whole()) {
    line += InBytes(*q);
  } else {
    line += q->ExactDecimal() + " (not a whole number: fine for CPU, but memory and GPUs count " +
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
  if (input != written) line += "; the API server trims the white space around it";
  if (r.canonical != input) line += "; Kubernetes writes it " + r.canonical;
  if (r.stored != r.canonical) line += "; stored for a container as " + r.stored;
  // String() writes no suffix past E (amount.go): the digits stay, the
  // magnitude goes.
  Quantity stored;
  if (q && (!Quantity::Parse(r.stored, &stored, nullptr) || stored != q->Stored()))
    line += " (not " + r.value + ": Kubernetes has no suffix past E and drops the magnitude)";
  return line;
}

// Why the API server refuses `input` as a request.
std::string Refusal(std::string_view input, const ApiServerReading& r) {
  switch (r.outcome) {
    case ApiServerReading::Outcome::kNegative:
      return "negative: the API server refuses a negative request or limit (must be greater than "
             "or equal to 0)";
    case ApiServerReading::Outcome::kTimeout:
      return "the API server gives up on it (Timeout): it accepts the exponent, but its "
             "arithmetic with it outlasts the request's time";
    default: {
      QuantityError error;
      Quantity::Parse(TrimGoSpace(input), nullptr, &error);
      return error.suggestion.empty() ? error.message : error.message + "; " + error.suggestion;
    }
  }
}

void AppendJson(std::string_view input, const ApiServerReading& r, std::string* out) {
  out->append("{\"input\":");
  AppendJsonString(input, out);
  if (r.accepted()) {
    out->append(",\"valid\":true,\"error\":null,\"canonical\":");
    AppendJsonString(r.canonical, out);
    out->append(",\"value\":");
    AppendJsonString(r.value, out);
    out->append(",\"stored\":");
    AppendJsonString(r.stored, out);
  } else {
    out->append(",\"valid\":false,\"error\":");
    AppendJsonString(Refusal(input, r), out);
    out->append(",\"canonical\":null,\"value\":null,\"stored\":null");
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
    ApiServerReading r = ReadAsApiServer(input);
    all_valid = all_valid && r.accepted();
    if (json) {
      out += i == 0 ? "\n" : ",\n";
      AppendJson(input, r, &out);
    } else if (r.accepted()) {
      Quantity q;
      bool exact = Quantity::Parse(TrimGoSpace(input), &q, nullptr);
      out += Explain(input, r, exact ? &q : nullptr) + "\n";
    } else {
      out += (TrimGoSpace(input).empty() ? "\"" + input + "\"" : input) +
             " is not a valid request: " + Refusal(input, r) + "\n";
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
