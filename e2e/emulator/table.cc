// File: e2e/emulator/table.cc
#include "e2e/emulator/table.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "e2e/emulator/selectors.h"

namespace gpuprofile::e2e {
namespace {

nlohmann::json CellValue(const PrinterColumn& c, const nlohmann::json& object, absl::Time now) {
  nlohmann::json v;
  if (c.compute) {
    v = c.compute(object);
  } else {
    std::vector<nlohmann::json> matches = EvaluateJsonPath(object, c.json_path);
    if (matches.empty()) return nullptr;
    v = matches.size() == 1 ? matches[0] : nlohmann::json(matches);
  }
  if (c.type == "date" && v.is_string()) {
    absl::Time t;
    std::string err;
    if (absl::ParseTime(absl::RFC3339_full, v.get<std::string>(), &t, &err)) {
      return HumanDuration(now - t);
    }
  }
  if (v.is_array()) {
    std::string joined;
    for (const auto& e : v) {
      if (!joined.empty()) joined += ",";
      joined += e.is_string() ? e.get<std::string>() : e.dump();
    }
    return joined;
  }
  return v;
}

}  // namespace

bool WantsTable(const std::string& accept) { return accept.find("as=Table") != std::string::npos; }

std::string HumanDuration(absl::Duration d) {
  int64_t seconds = absl::ToInt64Seconds(d);
  if (seconds < 0) seconds = 0;
  if (seconds < 60 * 2) return absl::StrCat(seconds, "s");
  int64_t minutes = seconds / 60;
  if (minutes < 10) {
    int64_t s = seconds % 60;
    return s == 0 ? absl::StrCat(minutes, "m") : absl::StrCat(minutes, "m", s, "s");
  }
  if (minutes < 60 * 3) return absl::StrCat(minutes, "m");
  int64_t hours = minutes / 60;
  if (hours < 8) {
    int64_t m = minutes % 60;
    return m == 0 ? absl::StrCat(hours, "h") : absl::StrCat(hours, "h", m, "m");
  }
  if (hours < 48) return absl::StrCat(hours, "h");
  if (hours < 24 * 8) {
    int64_t h = hours % 24;
    return h == 0 ? absl::StrCat(hours / 24, "d") : absl::StrCat(hours / 24, "d", h, "h");
  }
  if (hours < 24 * 365 * 2) return absl::StrCat(hours / 24, "d");
  return absl::StrCat(hours / 24 / 365, "y");
}

nlohmann::json BuildTable(const ResourceType& type, const std::vector<nlohmann::json>& objects,
                          const nlohmann::json& list_metadata, const std::string& include_object,
                          absl::Time now) {
  std::vector<PrinterColumn> columns;
  PrinterColumn name;
  name.name = "Name";
  name.format = "name";
  name.description = "Name must be unique within a namespace.";
  name.json_path = ".metadata.name";
  columns.push_back(name);
  for (const PrinterColumn& c : type.columns) columns.push_back(c);
  bool has_age = false;
  for (const PrinterColumn& c : type.columns) has_age = has_age || c.name == "Age";
  if (!has_age && !(type.is_custom && !type.columns.empty())) {
    PrinterColumn age;
    age.name = "Age";
    age.type = "date";
    age.json_path = ".metadata.creationTimestamp";
    columns.push_back(age);
  }
  nlohmann::json defs = nlohmann::json::array();
  for (const PrinterColumn& c : columns) {
    defs.push_back({{"name", c.name},
                    {"type", c.type},
                    {"format", c.format},
                    {"description", c.description},
                    {"priority", c.priority}});
  }
  nlohmann::json rows = nlohmann::json::array();
  for (const nlohmann::json& object : objects) {
    nlohmann::json cells = nlohmann::json::array();
    for (const PrinterColumn& c : columns) cells.push_back(CellValue(c, object, now));
    nlohmann::json row = {{"cells", cells}};
    if (include_object == "Object") {
      row["object"] = object;
    } else if (include_object != "None") {
      row["object"] = {{"kind", "PartialObjectMetadata"},
                       {"apiVersion", "meta.k8s.io/v1"},
                       {"metadata", object.value("metadata", nlohmann::json::object())}};
    }
    rows.push_back(std::move(row));
  }
  return {{"kind", "Table"},
          {"apiVersion", "meta.k8s.io/v1"},
          {"metadata", list_metadata},
          {"columnDefinitions", defs},
          {"rows", rows}};
}

}  // namespace gpuprofile::e2e
