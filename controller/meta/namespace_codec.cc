// File: controller/meta/namespace_codec.cc
#include "controller/meta/namespace_codec.h"

#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "controller/meta/field_codec.h"
#include "controller/meta/object_meta_codec.h"

namespace gpuprofile::meta {
namespace {

using json = nlohmann::json;


}  // namespace

bool IsNamespace(const json& object) {
  return MemberEquals(object, "apiVersion", "v1") && MemberEquals(object, "kind", "Namespace");
}

absl::StatusOr<Namespace> DecodeNamespace(const json& object) {
  FieldErrors errors;
  if (!CheckObject(object, "", &errors)) return errors.ToStatus();
  if (std::optional<std::string> api_version = StringField(object, "apiVersion", "", true, &errors);
      api_version && *api_version != "v1") {
    errors.Add("apiVersion", absl::StrCat("expected \"v1\", got ", QuoteForMessage(*api_version)));
  }
  if (std::optional<std::string> kind = StringField(object, "kind", "", true, &errors);
      kind && *kind != "Namespace") {
    errors.Add("kind", absl::StrCat("expected \"Namespace\", got ", QuoteForMessage(*kind)));
  }
  Namespace ns;
  if (const json* metadata = ObjectField(object, "metadata", "", true, &errors)) {
    ns.metadata = DecodeObjectMeta(*metadata, "metadata", &errors);
    if (ns.metadata.name.empty()) {
      const json* name = JsonMember(*metadata, "name");
      if (name == nullptr || name->is_string()) errors.Add("metadata.name", "required");
    }
  }
  if (!errors.empty()) return errors.ToStatus();
  const json* status = JsonMember(object, "status");
  ns.terminating = ns.metadata.deletion_timestamp.has_value() ||
                   (status != nullptr && MemberEquals(*status, "phase", "Terminating"));
  return ns;
}

}  // namespace gpuprofile::meta
