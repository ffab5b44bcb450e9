#include "webhook/server/validate.h"

#include <algorithm>
#include <array>

#include "engine/base/finding.h"
#include "engine/engine.h"
#include "engine/json/json_parser.h"

namespace gpulint {
namespace {

std::string FindingText(const Finding& f) {
  std::string s = f.rule;
  if (!f.path.empty()) s += " (" + f.path + ")";
  return s + ": " + f.message;
}

// Each waiver the engine met goes to the log, and to the API server's audit
// log as `waived` (honoured) and `waiver-refused` (not): no annotation
// silences a finding unseen.
void RecordWaivers(const std::vector<Waiver>& waivers, Answer* a, ReviewLog* log) {
  std::string waived, refused;
  for (const Waiver& w : waivers) {
    std::string text =
        TruncateForWarning(w.annotation + ": " + QuotedForReview(w.reason), kMaxWarningBytes);
    std::string& into = w.honoured ? waived : refused;
    std::string entry = text + " (" + std::to_string(w.findings) + " " +
                        SeverityName(w.severity) + (w.findings == 1 ? "" : "s") + ")";
    if (into.size() + entry.size() + 2 <= kMaxDenyMessageBytes)
      into += (into.empty() ? "" : "; ") + entry;
    log->waivers.push_back({w.rule, std::move(text), w.honoured});
  }
  if (!waived.empty()) a->audit_annotations.emplace_back("waived", std::move(waived));
  if (!refused.empty()) a->audit_annotations.emplace_back("waiver-refused", std::move(refused));
}

// Which of `findings`' errors the baseline already had. The old object is
// judged only here, when the new one has an error: an UPDATE that finds
// nothing costs no second evaluation. Each old finding stands for one new
// one, so a second copy of an existing error is new.
std::vector<bool> ExistingErrors(const std::vector<Finding>& findings, const PriorState& baseline,
                                 const Snapshot& snap) {
  std::vector<bool> existing(findings.size(), false);
  auto is_error = [](const Finding& f) { return f.severity == Severity::kError; };
  if (std::none_of(findings.begin(), findings.end(), is_error)) return existing;
  if (!baseline.made_by.empty()) {
    for (size_t i = 0; i < findings.size(); ++i) existing[i] = is_error(findings[i]);
    return existing;
  }
  if (!baseline.old_object) return existing;
  std::vector<Finding> old = Evaluate(*baseline.old_object, "", *snap.policy, *snap.inventory);
  std::vector<bool> matched(old.size(), false);
  for (size_t i = 0; i < findings.size(); ++i) {
    const Finding& f = findings[i];
    if (!is_error(f)) continue;
    for (size_t j = 0; j < old.size() && !existing[i]; ++j) {
      if (matched[j] || old[j].rule != f.rule || old[j].path != f.path ||
          old[j].message != f.message)
        continue;
      matched[j] = existing[i] = true;
    }
  }
  return existing;
}

// Appends `part` to a "; "-separated message of at most kMaxDenyMessageBytes;
// false (and *cut counted) when it does not fit. The first part always fits.
bool AppendPart(std::string part, std::string* message, size_t* cut) {
  if (message->empty() && part.size() > kMaxDenyMessageBytes)
    part = TruncateForWarning(part, kMaxDenyMessageBytes);
  if (message->size() + part.size() + 2 > kMaxDenyMessageBytes) {
    ++*cut;
    return false;
  }
  if (!message->empty()) *message += "; ";
  *message += part;
  return true;
}

void CloseMessage(size_t cut, std::string* message) {
  if (cut) *message += "; and " + std::to_string(cut) + " more";
}

}  // namespace

std::string QuotedForReview(std::string_view text) {
  std::string out;
  AppendJsonString(text.substr(0, 64), &out);
  if (text.size() > 64) out.insert(out.size() - 1, "...");
  return out;
}

// In warn mode the new errors become warnings, first; existing errors are
// warnings in deny and warn modes (deny mode would admit them); in audit mode
// nothing reaches the client but the audit annotations.
void Validate(const Value& object, const PriorState& baseline, const Snapshot& snap, Mode mode,
              Answer* a, ReviewLog* log) {
  std::vector<Waiver> waivers;
  EvaluateOptions options;
  options.waivers = &waivers;
  std::vector<Finding> findings = Evaluate(object, "", *snap.policy, *snap.inventory, options);
  RecordWaivers(waivers, a, log);
  const std::vector<bool> existing = ExistingErrors(findings, baseline, snap);
  bool has_errors = false, has_others = false;
  for (size_t i = 0; i < findings.size(); ++i)
    (findings[i].severity == Severity::kError && !existing[i] ? has_errors : has_others) = true;
  // The one table of modes (engine/base/verdict.h), as `gpulint audit` reports
  // it; an existing error counts as a warning.
  const Verdict verdict = VerdictOf(mode, has_errors, has_others, /*changes=*/false);
  const std::string existing_prefix =
      baseline.made_by.empty() ? "gpulint: already there before this update: "
                               : "gpulint: from its owner " + baseline.made_by + ", not denied: ";
  std::string denial, kept;
  size_t errors = 0, cut = 0, kept_cut = 0;
  std::vector<std::string> first;   // warn mode's would-be denials, then existing errors
  std::vector<std::string> shown;   // the rest, after them
  for (size_t i = 0; i < findings.size(); ++i) {
    const Finding& f = findings[i];
    log->finding_rules.push_back(f.rule);
    log->finding_severities.push_back(SeverityName(f.severity));
    if (f.severity != Severity::kError) {
      if (verdict != Verdict::kAllow && a->warnings.size() < kMaxWarnings)
        a->warnings.push_back(TruncateForWarning(FindingText(f), kMaxWarningBytes));
      continue;
    }
    if (existing[i]) {
      log->existing.push_back(FindingText(f));
      AppendPart(FindingText(f), &kept, &kept_cut);
      if (verdict != Verdict::kAllow)
        shown.push_back(TruncateForWarning(existing_prefix + FindingText(f), kMaxWarningBytes));
      continue;
    }
    if (mode == Mode::kWarn && first.size() < kMaxWarnings)
      first.push_back(
          TruncateForWarning("gpulint would deny: " + FindingText(f), kMaxWarningBytes));
    ++errors;
    AppendPart(FindingText(f), &denial, &cut);
  }
  first.insert(first.end(), shown.begin(), shown.end());
  first.insert(first.end(), a->warnings.begin(), a->warnings.end());
  first.resize(std::min(first.size(), kMaxWarnings));
  a->warnings = std::move(first);
  if (!kept.empty()) {
    CloseMessage(kept_cut, &kept);
    a->audit_annotations.emplace_back("existing", std::move(kept));
    log->existing_in = baseline.made_by.empty() ? "the object before this update"
                                                : "its owner " + baseline.made_by;
  }
  if (errors == 0) {
    log->decision = "allowed";
    return;
  }
  CloseMessage(cut, &denial);
  if (verdict != Verdict::kDeny) {
    a->audit_annotations.emplace_back("would-deny", std::move(denial));
    log->decision = "would_deny";
    return;
  }
  a->allowed = false;
  a->code = 403;
  a->reason = "Forbidden";
  a->message = std::move(denial);
  log->decision = "denied";
}

std::string MadeByWorkloadController(const Value& request, const Value& object) {
  // kube-controller-manager's identity: one for all its controllers, or with
  // --use-service-account-credentials one service account each. Only these
  // make objects from a template an owner holds; a tenant cannot act as them
  // without the right to impersonate.
  static constexpr std::array<std::string_view, 7> kControllers = {
      "deployment-controller", "replicaset-controller",  "statefulset-controller",
      "daemon-set-controller", "job-controller",         "cronjob-controller",
      "replication-controller"};
  constexpr std::string_view kServiceAccounts = "system:serviceaccount:kube-system:";
  const Value* user = request.Find("userInfo");
  std::string_view name = user ? user->StringAt("username") : "";
  bool controller = name == "system:kube-controller-manager";
  if (name.substr(0, kServiceAccounts.size()) == kServiceAccounts)
    controller = std::find(kControllers.begin(), kControllers.end(),
                           name.substr(kServiceAccounts.size())) != kControllers.end();
  if (!controller) return {};
  const Value* meta = object.Find("metadata");
  const Value* owners = meta ? meta->Find("ownerReferences") : nullptr;
  if (!owners) return {};
  for (const Value& owner : owners->items()) {
    const Value* is_controller = owner.Find("controller");
    if (!is_controller || is_controller->type() != Value::Type::kBool ||
        is_controller->text() != "true")
      continue;
    std::string_view kind = owner.StringAt("kind"), owner_name = owner.StringAt("name");
    if (kind.empty() || owner_name.empty()) return {};
    return std::string(kind) + " " + QuotedForReview(owner_name);
  }
  return {};
}

}  // namespace gpulint
