// parse-error: reported by the front ends for documents that do not load;
// it has no check of its own.
#include "engine/rules/rule.h"
#include "generated/rule_examples.h"

namespace gpulint {

extern const Rule kParseErrorRule = {
    {"parse-error", Severity::kError, "The document is not valid YAML or JSON",
     "A manifest that does not parse is not applied at all, and nothing else can be checked in "
     "it. Other documents in the same file are still checked.",
     "Fix the syntax at the position shown (indentation, a missing ':' or quote, a tab).",
     RuleExample("parse-error"), /*gpus=*/nullptr,
     /*no_fix=*/nullptr, /*needs_nodes=*/false, /*not_cel=*/
     "a document that does not parse is refused by the API server as it decodes the request, "
     "before any admission control"},
    [](const ObjectContext&, Reporter&) {},
};

}  // namespace gpulint
