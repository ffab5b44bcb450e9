#include "webhook/kube/registrar.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <utility>

#include "common/base64.h"
#include "engine/base/objects.h"
#include "engine/yaml/loader.h"

namespace gpulint {
namespace {

constexpr std::string_view kGroupVersion = "admissionregistration.k8s.io/v1";
constexpr const char* kApplyPatchType = "application/apply-patch+yaml";

bool ReadText(const std::string& path, std::string* out, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) {
    *error = "cannot read " + path;
    return false;
  }
  *out = text.str();
  return true;
}

Value Str(std::string text) { return Value::String(std::move(text)); }

// What a webhook configuration becomes in an apply request: its name, and its
// webhooks with the CA set, or none. Labels and annotations stay the chart's.
Value ApplyBody(const Value& object, const std::string& ca_base64, bool registered) {
  Value body(Value::Type::kMapping);
  auto& m = body.mutable_members();
  m.emplace_back("apiVersion", Str(std::string(object.StringAt("apiVersion"))));
  m.emplace_back("kind", Str(std::string(object.StringAt("kind"))));
  Value metadata(Value::Type::kMapping);
  metadata.mutable_members().emplace_back(
      "name", Str(std::string(object.Find("metadata")->StringAt("name"))));
  m.emplace_back("metadata", std::move(metadata));
  Value webhooks(Value::Type::kSequence);
  const Value* given = object.Find("webhooks");
  if (registered && given && given->is_sequence()) {
    webhooks = *given;
    for (Value& webhook : webhooks.mutable_items()) {
      for (Value::Member& field : webhook.mutable_members()) {
        if (field.first != "clientConfig" || !field.second.is_mapping()) continue;
        auto& config = field.second.mutable_members();
        config.erase(std::remove_if(config.begin(), config.end(),
                                    [](const Value::Member& x) { return x.first == "caBundle"; }),
                     config.end());
        config.emplace_back("caBundle", Str(ca_base64));
      }
    }
  }
  m.emplace_back("webhooks", std::move(webhooks));
  return body;
}

std::string ResourceOf(std::string_view kind) {
  return kind == "ValidatingWebhookConfiguration" ? "validatingwebhookconfigurations"
                                                  : "mutatingwebhookconfigurations";
}

}  // namespace

bool PlanRegistrations(std::string_view text, const std::string& file, const std::string& ca_pem,
                       bool registered, std::vector<Registration>* out, std::string* error) {
  std::vector<Registration> plan;
  std::string ca_base64 = Base64Encode(ca_pem);
  std::string problem;
  Error load_error;
  bool loaded = LoadYamlString(
      text, file, LoadLimits{},
      [&](Document&& doc) {
        if (!doc.ok) {
          problem = doc.error.ToString();
          return false;
        }
        ForEachObject(doc.root, [&](const Value& object) {
          if (!problem.empty() || object.is_null()) return;
          std::string_view kind = object.StringAt("kind");
          const Value* metadata = object.Find("metadata");
          std::string name(metadata ? metadata->StringAt("name") : "");
          if ((kind != "ValidatingWebhookConfiguration" &&
               kind != "MutatingWebhookConfiguration") ||
              object.StringAt("apiVersion") != kGroupVersion || name.empty()) {
            problem = file + ": expected " + std::string(kGroupVersion) +
                      " Validating- and MutatingWebhookConfigurations with names, found " +
                      (kind.empty() ? std::string("an object without a kind") : std::string(kind));
            return;
          }
          plan.push_back(Registration{
              std::string(kind), name,
              "/apis/admissionregistration.k8s.io/v1/" + ResourceOf(kind) + "/" + UrlEscape(name),
              ToJson(ApplyBody(object, ca_base64, registered))});
        });
        return problem.empty();
      },
      &load_error);
  if (!loaded && problem.empty()) problem = load_error.ToString();
  if (problem.empty() && plan.empty()) problem = file + ": holds no webhook configuration";
  if (!problem.empty()) {
    *error = problem;
    return false;
  }
  *out = std::move(plan);
  return true;
}

Registrar::Registrar(KubeEndpoint endpoint, std::string file, std::string ca_file,
                     AnswerSource answering, LogSink log, Metrics* metrics, Options options)
    : endpoint_(std::move(endpoint)),
      file_(std::move(file)),
      ca_(std::move(ca_file)),
      answering_(std::move(answering)),
      log_(std::move(log)),
      metrics_(metrics),
      options_(options) {}

Registrar::~Registrar() { Stop(); }

void Registrar::Start() {
  loop_.Start([this] { Run(); });
}

void Registrar::Stop() { loop_.Stop(); }

bool Registrar::ApplyAll(bool registered, std::string* error) {
  file_.Mark();
  ca_.Mark();
  std::string text, ca;
  if (!ReadText(file_.path(), &text, error) || !ReadText(ca_.path(), &ca, error)) return false;
  std::vector<Registration> plan;
  if (!PlanRegistrations(text, file_.path(), ca, registered, &plan, error)) return false;
  for (const Registration& r : plan) {
    std::unique_ptr<HttpsClient> client = MakeKubeClient(endpoint_, error);
    if (!client) return false;
    client->set_read_timeout(options_.request_timeout_seconds);
    client->set_write_timeout(options_.request_timeout_seconds);
    ++applies_;
    KubeResponse response =
        Patch(*client, endpoint_.base_path + r.path + "?fieldManager=gpulint-webhook&force=true",
              r.body, kApplyPatchType);
    if (metrics_) metrics_->CountRegistrationApply(response.ok());
    if (!response.ok()) {
      *error = r.kind + " " + r.name + ": " + response.Describe();
      return false;
    }
  }
  return true;
}

void Registrar::Run() {
  bool known = false, registered = false;
  int failures = 0;
  Clock::time_point resync_at, retry_at;
  const Backoff backoff{options_.min_backoff, options_.max_backoff};
  while (!loop_.stopping()) {
    Clock::time_point now = Clock::now();
    bool want = answering_();
    bool due = !known || want != registered || file_.Changed() || ca_.Changed() ||
               now >= resync_at || failures > 0;
    if (due && now >= retry_at) {
      std::string error;
      if (ApplyAll(want, &error)) {
        if (!known || want != registered || failures > 0)
          LogLine("info", want ? "webhook configurations registered"
                               : "webhook configurations withdrawn: this webhook cannot answer "
                                 "(no valid certificate)")
              .Add("file", file_.path())
              .Emit(log_);
        known = true;
        registered = want;
        failures = 0;
        resync_at = now + options_.resync;
        if (metrics_) metrics_->SetRegistered(registered);
      } else {
        auto wait = backoff.After(++failures);
        retry_at = now + wait;
        LogLine("error", want ? "cannot register the webhook configurations"
                              : "cannot withdraw the webhook configurations")
            .Add("error", error)
            .Add("retry_ms", static_cast<int64_t>(wait.count()))
            .Emit(log_);
      }
    }
    if (!loop_.SleepFor(options_.poll)) return;
  }
}

}  // namespace gpulint
