#include "webhook/server/admission.h"

#include <algorithm>
#include <exception>
#include <new>
#include <stdexcept>
#include <utility>

#include "engine/base/finding.h"
#include "engine/base/objects.h"
#include "engine/base/value.h"
#include "engine/engine.h"
#include "engine/json/json_parser.h"
#include "engine/json/json_patch.h"
#include "engine/mutate/mutate.h"
#include "engine/workload/workload.h"
#include "engine/yaml/loader.h"
#include "common/base64.h"
#include "webhook/server/validate.h"

namespace gpulint {
namespace {

constexpr std::string_view kReviewV1 = "admission.k8s.io/v1";
constexpr std::string_view kReviewV1beta1 = "admission.k8s.io/v1beta1";
constexpr const char* kTextType = "text/plain; charset=utf-8";
constexpr const char* kJsonType = "application/json";

ReviewResult BadRequest(std::string message, ReviewLog log) {
  ReviewResult r;
  r.http_status = 400;
  r.content_type = kTextType;
  r.body = std::move(message) + "\n";
  r.log = std::move(log);
  r.log.decision = "invalid";
  r.log.reason = r.body.substr(0, r.body.size() - 1);
  return r;
}

// Checks the envelope. An empty return means `root` is a review we can answer:
// *api_version, *uid and *request are set.
std::string ReadEnvelope(const Value& root, std::string* api_version, std::string* uid,
                         const Value** request) {
  if (!root.is_mapping()) return "request body is not a JSON object";
  const Value* v = root.Find("apiVersion");
  if (!v || !v->is_string())
    return "apiVersion is missing: expected admission.k8s.io/v1 or admission.k8s.io/v1beta1";
  if (v->text() != kReviewV1 && v->text() != kReviewV1beta1)
    return "apiVersion must be admission.k8s.io/v1 or admission.k8s.io/v1beta1, not " +
           QuotedForReview(v->text());
  *api_version = v->text();
  const Value* kind = root.Find("kind");
  if (!kind || !kind->is_string()) return "kind is missing: expected AdmissionReview";
  if (kind->text() != "AdmissionReview")
    return "kind must be AdmissionReview, not " + QuotedForReview(kind->text());
  const Value* req = root.Find("request");
  if (!req || req->is_null()) return "request is missing: an AdmissionReview must carry one";
  if (!req->is_mapping()) return "request must be an object";
  const Value* u = req->Find("uid");
  if (!u || u->is_null()) return "request.uid is missing";
  if (!u->is_string()) return "request.uid must be a string";
  if (u->text().empty()) return "request.uid is empty";
  if (u->text().size() > kMaxUidBytes) return "request.uid is longer than 256 bytes";
  *uid = u->text();
  *request = req;
  return {};
}

// The names the log and the metrics use, taken from wherever they are present.
void DescribeRequest(const Value& req, ReviewLog* log) {
  log->operation = std::string(req.StringAt("operation"));
  log->namespace_name = std::string(req.StringAt("namespace"));
  log->name = std::string(req.StringAt("name"));
  const Value* kind = req.Find("kind");
  if (kind) log->kind = std::string(kind->StringAt("kind"));
  const Value* dry = req.Find("dryRun");
  log->dry_run = dry && dry->type() == Value::Type::kBool && dry->text() == "true";
  const Value* object = req.Find("object");
  if (!object || !object->is_mapping()) return;
  if (log->kind.empty()) log->kind = std::string(object->StringAt("kind"));
  const Value* meta = object->Find("metadata");
  if (!meta) return;
  if (log->namespace_name.empty()) log->namespace_name = std::string(meta->StringAt("namespace"));
  if (log->name.empty()) log->name = std::string(meta->StringAt("name"));
  if (log->name.empty()) log->name = std::string(meta->StringAt("generateName"));
}

std::string ResponseJson(std::string_view api_version, std::string_view uid, const Answer& a) {
  std::string out = "{\"apiVersion\":";
  AppendJsonString(api_version, &out);
  out += ",\"kind\":\"AdmissionReview\",\"response\":{\"uid\":";
  AppendJsonString(uid, &out);
  out += a.allowed ? ",\"allowed\":true" : ",\"allowed\":false";
  if (!a.allowed) {
    out += ",\"status\":{\"status\":\"Failure\",\"code\":" + std::to_string(a.code) +
           ",\"reason\":";
    AppendJsonString(a.reason, &out);
    out += ",\"message\":";
    AppendJsonString(a.message, &out);
    out += "}";
  }
  if (!a.warnings.empty()) {
    out += ",\"warnings\":[";
    for (size_t i = 0; i < a.warnings.size(); ++i) {
      if (i) out += ',';
      AppendJsonString(a.warnings[i], &out);
    }
    out += "]";
  }
  if (!a.audit_annotations.empty()) {
    out += ",\"auditAnnotations\":{";
    for (size_t i = 0; i < a.audit_annotations.size(); ++i) {
      if (i) out += ',';
      AppendJsonString(a.audit_annotations[i].first, &out);
      out += ':';
      AppendJsonString(a.audit_annotations[i].second, &out);
    }
    out += "}";
  }
  if (!a.patch.empty()) {
    out += ",\"patchType\":\"JSONPatch\",\"patch\":\"" + Base64Encode(a.patch) + "\"";
  }
  out += "}}";
  return out;
}

// An in-place resize (pods/resize, GA in Kubernetes 1.35) carries the whole
// Pod as it would be after the resize; /validate judges it like any pod, on
// its own node (spec.nodeName). What the resized pod alone cannot show, a
// memory limit taken away, the API server refuses itself ("resource limits
// cannot be removed") before any webhook is called. /mutate leaves a resize
// alone: a running pod's patch could only be refused (/admit judges it and
// patches nothing).
bool JudgedSubresource(Endpoint endpoint, std::string_view sub) {
  return endpoint != Endpoint::kMutate && sub == "resize";
}

// Why the engine cannot be asked about this request; empty when it can.
// *skip is set for requests that are allowed untouched by design.
std::string Unevaluable(Endpoint endpoint, const Value& req, std::string* skip) {
  const Value* op = req.Find("operation");
  if (!op || !op->is_string()) return "request.operation is missing";
  const std::string& o = op->text();
  if (o != "CREATE" && o != "UPDATE" && o != "DELETE" && o != "CONNECT")
    return "request.operation must be CREATE, UPDATE, DELETE or CONNECT, not " + QuotedForReview(o);
  const Value* sub = req.Find("subResource");
  if (sub && !sub->is_null() && !sub->is_string()) return "request.subResource must be a string";
  if (sub && sub->is_string() && !sub->text().empty() && !JudgedSubresource(endpoint, sub->text())) {
    *skip = "subresource " + QuotedForReview(sub->text()) + " is not checked";
    return {};
  }
  if (o == "DELETE" || o == "CONNECT") {
    *skip = o + " is not checked";
    return {};
  }
  const Value* object = req.Find("object");
  if (!object || object->is_null()) return "request.object is missing on " + o;
  if (!object->is_mapping())
    return "request.object must be an object, not " + std::string(TypeName(object->type()));
  if (object->StringAt("apiVersion").empty()) return "request.object.apiVersion is missing";
  if (object->StringAt("kind").empty()) return "request.object.kind is missing";
  const Value* meta = object->Find("metadata");
  if (meta && !meta->is_null() && !meta->is_mapping())
    return "request.object.metadata must be an object";
  return {};
}

// Objects sent on CREATE may leave metadata.namespace to the request; the
// engine's exemptions look at the object, so it gets the namespace here.
const Value& WithNamespace(const Value& object, std::string_view ns, Value* copy) {
  const Value* meta = object.Find("metadata");
  if (ns.empty() || !meta || !meta->is_mapping() || !meta->StringAt("namespace").empty())
    return object;
  *copy = object;
  for (Value::Member& m : copy->mutable_members()) {
    if (m.first != "metadata") continue;
    auto& members = m.second.mutable_members();
    members.erase(std::remove_if(members.begin(), members.end(),
                                 [](const Value::Member& x) { return x.first == "namespace"; }),
                  members.end());
    members.emplace_back("namespace", Value::String(std::string(ns)));
  }
  return *copy;
}

std::string JoinNotes(const std::vector<std::string>& notes) {
  std::string out;
  for (const std::string& n : notes) out += (out.empty() ? "" : "; ") + n;
  return out;
}

// A Pod's spec, and a Job's pod template, cannot change after creation: a
// patch to them on UPDATE would make the API server refuse the whole update
// (a label change, a finalizer removal).
bool PodSpecFrozen(const Value& object) {
  std::string_view api = object.StringAt("apiVersion"), kind = object.StringAt("kind");
  return (kind == "Pod" && api == "v1") || (kind == "Job" && ApiGroupOf(api) == "batch");
}

// Returns the patch the API server will apply: empty unless deny mode.
std::vector<PatchOp> MutateObject(const Value& object, const Snapshot& snap, Mode mode, Answer* a,
                                  ReviewLog* log) {
  log->decision = "allowed";
  if (snap.policy->ExemptNamespace(log->namespace_name)) {
    log->reason = "namespace " + QuotedForReview(log->namespace_name) + " is exempt";
    return {};
  }
  if (log->operation == "UPDATE" && PodSpecFrozen(object)) {
    log->reason = std::string(object.StringAt("kind")) + " specs cannot change after creation";
    return {};
  }
  std::vector<std::string> notes;
  std::vector<PatchOp> ops = Mutate(object, *snap.policy, *snap.inventory, &notes);
  if (ops.empty()) return {};
  log->patch_ops = ops.size();
  if (mode != Mode::kDeny) {
    log->unapplied_patch = PatchToJson(ops);
    log->decision = "would_patch";
    if (mode == Mode::kWarn && a->warnings.size() < kMaxWarnings)
      a->warnings.push_back(TruncateForWarning(
          "gpulint would change this pod in deny mode: " + JoinNotes(notes), kMaxWarningBytes));
    a->audit_annotations.emplace_back("would-patch", log->unapplied_patch);
    return {};
  }
  a->patch = PatchToJson(ops);
  log->decision = "patched";
  return ops;
}

// /admit: the patch of /mutate and the verdict of /validate in one answer.
// The verdict is on the object as the API server will store it, which is what
// /validate would have been sent: in deny mode with the patch applied (hiding
// a container's GPUs repairs its gpu-limit-missing), else as it came.
void AdmitObject(const Value& object, bool patch, const PriorState& baseline, const Snapshot& snap,
                 Mode mode, Answer* a, ReviewLog* log) {
  std::vector<PatchOp> applied;
  if (patch) applied = MutateObject(object, snap, mode, a, log);
  std::string patched = log->decision;
  Value stored;
  if (!applied.empty()) {
    stored = object;
    Error error;
    // Mutate's own ops on the object they were made from: a failure is a bug,
    // answered with HTTP 500 so that failurePolicy decides, not a guess.
    if (!ApplyPatch(applied, &stored, &error))
      throw std::logic_error("the patch does not apply to its own object: " + error.ToString());
  }
  Validate(applied.empty() ? object : stored, baseline, snap, mode, a, log);
  if (!a->allowed) {
    a->patch.clear();  // a refused object is not stored
    log->patch_ops = 0;
    return;
  }
  if (log->decision == "allowed") log->decision = patched;
}

// What the object's errors are measured against (validate.h): nothing with
// ratcheting off, and nothing on an UPDATE whose oldObject is not an object
// (judged alone, as before ratcheting).
PriorState PriorStateOf(const Value& req, const Value& object, std::string_view ns,
                    const ReviewOptions& options, Value* old_copy) {
  PriorState b;
  if (!options.allow_existing_violations) return b;
  std::string_view op = req.StringAt("operation");
  if (op == "CREATE") b.made_by = MadeByWorkloadController(req, object);
  const Value* old = req.Find("oldObject");
  if (op == "UPDATE" && old && old->is_mapping() && !old->StringAt("kind").empty())
    b.old_object = &WithNamespace(*old, ns, old_copy);
  return b;
}

// The tree's budget for `body` (ReviewOptions).
size_t TreeBudget(std::string_view body, const ReviewOptions& options) {
  if (options.parse_budget == 0) return 0;
  return std::max(kMinParseBudgetBytes, options.parse_budget * body.size());
}

ReviewResult Judge(Endpoint endpoint, std::string_view body, const Snapshot& snap, Mode mode,
                   const ReviewOptions& options) {
  ReviewLog log;
  log.mode = mode;
  Value root;
  Error error;
  if (body.empty()) return BadRequest("request body is empty: expected an AdmissionReview", log);
  switch (ParseJsonWithin(body, JsonLimits{kMaxReviewDepth, TreeBudget(body, options)}, &root,
                          &error)) {
    case JsonParse::kOk: break;
    case JsonParse::kInvalid:
      return BadRequest("request body is not valid JSON: " + error.ToString(), log);
    case JsonParse::kOverBudget: {
      // Said before the tree grows further: the body's shape, not its size,
      // is what costs (a 3 MiB array of zeros is 1.5 million values).
      ReviewResult r = BadRequest(
          "request body is too costly to judge: " + error.message + " (the budget is " +
              std::to_string(options.parse_budget) + " times the body's " +
              std::to_string(body.size()) + " bytes: --parse-budget)",
          log);
      r.log.over_budget = true;
      return r;
    }
  }
  const Value* req = nullptr;
  std::string message = ReadEnvelope(root, &log.api_version, &log.uid, &req);
  if (!message.empty()) return BadRequest(std::move(message), log);
  DescribeRequest(*req, &log);

  Answer answer;
  std::string skip;
  std::string why = Unevaluable(endpoint, *req, &skip);
  if (!snap.policy || !snap.inventory) {
    // Never worse than no webhook at all: say so, and let it through.
    log.decision = "unenforced";
    log.reason = "no valid policy is loaded: " + snap.problem;
    answer.warnings.push_back(TruncateForWarning(
        "gpulint is not enforcing, its policy did not load: " + snap.problem, kMaxWarningBytes));
  } else if (!why.empty()) {
    log.reason = why;
    log.decision = "allowed";
    if (endpoint != Endpoint::kMutate) {
      answer.allowed = false;
      answer.code = 400;
      answer.reason = "BadRequest";
      answer.message = "gpulint could not evaluate this request: " + why;
      log.decision = "denied";
    }
  } else if (!skip.empty()) {
    log.reason = skip;
    log.decision = "allowed";
  } else {
    Value copy, old_copy;
    const Value& object = WithNamespace(*req->Find("object"), log.namespace_name, &copy);
    if (endpoint == Endpoint::kMutate) {
      MutateObject(object, snap, mode, &answer, &log);
    } else {
      PriorState baseline = PriorStateOf(*req, object, log.namespace_name, options, &old_copy);
      if (endpoint == Endpoint::kValidate)
        Validate(object, baseline, snap, mode, &answer, &log);
      else
        AdmitObject(object, req->StringAt("subResource").empty(), baseline, snap, mode, &answer,
                    &log);
    }
  }
  ReviewResult r;
  r.content_type = kJsonType;
  r.body = ResponseJson(log.api_version, log.uid, answer);
  r.log = std::move(log);
  return r;
}

}  // namespace

const char* EndpointName(Endpoint e) {
  switch (e) {
    case Endpoint::kValidate:
      return "validate";
    case Endpoint::kMutate:
      return "mutate";
    case Endpoint::kAdmit:
      return "admit";
  }
  return "validate";
}

ReviewResult HandleReview(Endpoint endpoint, std::string_view body, const Snapshot& snapshot,
                          Mode mode, const ReviewOptions& options) {
  try {
    return Judge(endpoint, body, snapshot, mode, options);
  } catch (const std::exception& e) {
    // Out of memory or a bug: no verdict can be trusted, and an HTTP 500 makes
    // the API server apply the webhook's failurePolicy instead of admitting.
    ReviewResult r;
    r.http_status = 500;
    r.content_type = kTextType;
    r.body = std::string("internal error: ") + e.what() + "\n";
    r.log.decision = "error";
    r.log.reason = e.what();
    return r;
  } catch (...) {
    ReviewResult r;
    r.http_status = 500;
    r.content_type = kTextType;
    r.body = "internal error\n";
    r.log.decision = "error";
    return r;
  }
}

std::string TruncateForWarning(std::string_view text, size_t max_bytes) {
  std::string out(text);
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  if (out.size() <= max_bytes) return out;
  size_t keep = max_bytes >= 3 ? max_bytes - 3 : 0;
  // Step back over continuation bytes so no UTF-8 sequence is split.
  while (keep > 0 && (static_cast<unsigned char>(out[keep]) & 0xC0) == 0x80) --keep;
  out.resize(keep);
  return out + "...";
}

}  // namespace gpulint
