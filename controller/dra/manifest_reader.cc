// File: controller/dra/manifest_reader.cc
// YAML/JSON manifest reading. YAML goes through yaml-cpp's event API (not YAML::LoadAll, which
// stops at the first empty document) straight into nlohmann::json, resolving plain scalars with
// go-yaml v2's rules so that the result equals what Kubernetes' YAML→JSON conversion produces.
#include "controller/dra/manifest_reader.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "controller/core/input_limits.h"
#include "controller/meta/field_codec.h"
#include "yaml-cpp/eventhandler.h"
#include "yaml-cpp/exceptions.h"
#include "yaml-cpp/mark.h"
#include "yaml-cpp/parser.h"

namespace gpuprofile::dra {
namespace {

using json = nlohmann::json;

constexpr absl::string_view kYamlTagPrefix = "tag:yaml.org,2002:";

std::string DocumentLabel(int document_index) {
  return absl::StrCat("document ", document_index + 1);
}

std::string MarkLabel(const YAML::Mark& mark) {
  if (mark.is_null()) return "";
  return absl::StrCat("line ", mark.line + 1, ", column ", mark.column + 1, ": ");
}

// Go's strconv.ParseUint(s, 0, 64) (prefixes 0x, 0o, 0b, and a bare leading 0 for octal).
bool ParseGoUint(absl::string_view s, uint64_t* out) {
  if (s.empty()) return false;
  uint64_t base = 10;
  if (s[0] == '0') {
    const char p = s.size() >= 3 ? static_cast<char>(s[1] | 0x20) : '\0';
    if (p == 'b') {
      base = 2;
      s.remove_prefix(2);
    } else if (p == 'o') {
      base = 8;
      s.remove_prefix(2);
    } else if (p == 'x') {
      base = 16;
      s.remove_prefix(2);
    } else {
      base = 8;
      s.remove_prefix(1);
    }
  }
  uint64_t n = 0;
  for (char c : s) {
    uint64_t d;
    if (c >= '0' && c <= '9') {
      d = static_cast<uint64_t>(c - '0');
    } else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f') {
      d = static_cast<uint64_t>((c | 0x20) - 'a' + 10);
    } else {
      return false;
    }
    if (d >= base) return false;
    if (n > (std::numeric_limits<uint64_t>::max() - d) / base) return false;
    n = n * base + d;
  }
  *out = n;
  return true;
}

// Go's strconv.ParseInt(s, 0, 64).
bool ParseGoInt(absl::string_view s, int64_t* out) {
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  uint64_t u;
  if (!ParseGoUint(s, &u)) return false;
  constexpr uint64_t kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (!negative) {
    if (u > kMax) return false;
    *out = static_cast<int64_t>(u);
  } else {
    if (u > kMax + 1) return false;
    *out = u == kMax + 1 ? std::numeric_limits<int64_t>::min() : -static_cast<int64_t>(u);
  }
  return true;
}

bool AllDigits(absl::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// go-yaml v2's yamlStyleFloat: ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$
bool IsYamlStyleFloat(absl::string_view s) {
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) s.remove_prefix(1);
  size_t e = s.find_first_of("eE");
  absl::string_view mantissa = s.substr(0, e);
  if (e != absl::string_view::npos) {
    absl::string_view exponent = s.substr(e + 1);
    if (!exponent.empty() && (exponent[0] == '+' || exponent[0] == '-')) exponent.remove_prefix(1);
    if (!AllDigits(exponent)) return false;
  }
  size_t dot = mantissa.find('.');
  if (dot == absl::string_view::npos) return AllDigits(mantissa);
  if (dot == 0) return AllDigits(mantissa.substr(1));
  absl::string_view frac = mantissa.substr(dot + 1);
  return AllDigits(mantissa.substr(0, dot)) && (frac.empty() || AllDigits(frac));
}

bool ParseFiniteDouble(const std::string& s, double* out) {
  errno = 0;
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || !std::isfinite(v) || errno == ERANGE) {
    // Go reports overflow as an error; underflow to zero is fine.
    if (!(errno == ERANGE && std::isfinite(v))) return false;
  }
  *out = v;
  return true;
}

// Resolves an untagged plain scalar as go-yaml v2 does for an interface{} target (timestamps
// stay strings there).
absl::StatusOr<json> ResolvePlain(const std::string& text) {
  static const auto* const kWords = new std::map<std::string, json, std::less<>>{
      {"y", true},      {"Y", true},       {"yes", true},   {"Yes", true},    {"YES", true},
      {"true", true},   {"True", true},    {"TRUE", true},  {"on", true},     {"On", true},
      {"ON", true},     {"n", false},      {"N", false},    {"no", false},    {"No", false},
      {"NO", false},    {"false", false},  {"False", false}, {"FALSE", false}, {"off", false},
      {"Off", false},   {"OFF", false},    {"", nullptr},   {"~", nullptr},   {"null", nullptr},
      {"Null", nullptr}, {"NULL", nullptr},
  };
  if (auto it = kWords->find(text); it != kWords->end()) return it->second;
  static const auto* const kNonFinite = new std::set<std::string, std::less<>>{
      ".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF",
      "-.inf", "-.Inf", "-.INF"};
  if (kNonFinite->count(text) > 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("value ", text, " (NaN or infinity) cannot be represented in JSON"));
  }
  const char c = text[0];
  if (c == '.') {
    double v;
    if (IsYamlStyleFloat(text) && ParseFiniteDouble(text, &v)) return v;
    return text;
  }
  if (c == '+' || c == '-' || (c >= '0' && c <= '9')) {
    std::string plain;
    plain.reserve(text.size());
    for (char ch : text) {
      if (ch != '_') plain.push_back(ch);
    }
    int64_t i;
    if (ParseGoInt(plain, &i)) return i;
    uint64_t u;
    if (ParseGoUint(plain, &u)) return u;
    double d;
    if (IsYamlStyleFloat(plain) && ParseFiniteDouble(plain, &d)) return d;
  }
  return text;
}

absl::StatusOr<json> ResolveScalar(const std::string& tag, const std::string& text) {
  if (tag == "!") return text;  // quoted or block scalar: always a string
  if (!absl::StartsWith(tag, kYamlTagPrefix)) {
    return ResolvePlain(text);  // "?" (plain) or a local tag (!foo), which go-yaml ignores
  }
  const absl::string_view kind = absl::string_view(tag).substr(kYamlTagPrefix.size());
  if (kind == "str" || kind == "binary" || kind == "timestamp") return text;
  absl::StatusOr<json> value = ResolvePlain(text);
  if (!value.ok()) return value;
  const bool fits = (kind == "int" && value->is_number_integer()) ||
                    (kind == "float" && value->is_number()) ||
                    (kind == "bool" && value->is_boolean()) || (kind == "null" && value->is_null());
  if (kind == "float" && value->is_number_integer()) return value->get<double>();
  if (fits || (kind != "int" && kind != "float" && kind != "bool" && kind != "null")) {
    return value;
  }
  return absl::InvalidArgumentError(absl::StrCat("cannot decode \"", text, "\" as !!", kind));
}

// The nodes one file's YAML may materialise, shared by its documents (input_limits.h).
struct NodeBudget {
  int64_t used = 0;
  int64_t limit = 0;
  size_t input_bytes = 0;
};

// Builds one YAML document as JSON from yaml-cpp's parse events. The first problem is kept in
// status(); later events are then ignored. Every node it materialises (parsed, copied in by an
// alias, copied to remember an anchor) is charged to the file's budget, and no value may nest
// deeper than limits::kMaxNestingDepth, aliases included: an alias bomb fails after the budget's
// worth of work, not 10^9 nodes.
class JsonBuilder : public YAML::EventHandler {
 public:
  explicit JsonBuilder(NodeBudget* budget) : budget_(budget) {}

  const absl::Status& status() const { return status_; }
  // True when status() is a limit (budget, nesting) rather than malformed YAML.
  bool limit_exceeded() const { return limit_exceeded_; }
  json& root() { return root_; }

  void OnDocumentStart(const YAML::Mark& mark) override { document_mark_ = mark; }
  const YAML::Mark& document_mark() const { return document_mark_; }
  void OnDocumentEnd() override {}

  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    if (!Charge(1, mark)) return;
    Add(json(nullptr), "", false, mark, anchor, 1, 0);
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    if (!status_.ok()) return;
    auto it = anchors_.find(anchor);
    if (it == anchors_.end()) return Fail(mark, "alias refers to an unfinished (recursive) node");
    const Anchored& anchored = it->second;
    if (static_cast<int64_t>(stack_.size()) + anchored.height > limits::kMaxNestingDepth) {
      return FailNesting(mark, /*through_alias=*/true);
    }
    if (!Charge(anchored.nodes, mark)) return;
    Add(anchored.value, "", false, mark, 0, anchored.nodes, anchored.height);
  }
  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& value) override {
    if (!status_.ok() || !Charge(1, mark)) return;
    absl::StatusOr<json> resolved = ResolveScalar(tag, value);
    if (!resolved.ok()) return Fail(mark, resolved.status().message());
    Add(*std::move(resolved), value, tag == "?" && value == "<<", mark, anchor, 1, 0);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    Push(false, mark, anchor);
  }
  void OnSequenceEnd() override { Pop(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    Push(true, mark, anchor);
  }
  void OnMapEnd() override { Pop(); }

 private:
  struct Frame {
    bool is_map = false;
    json value;
    int64_t nodes = 1;  // in the subtree, this collection included
    int height = 1;     // levels of collections in the subtree, this one included
    YAML::anchor_t anchor = 0;
    YAML::Mark start_mark;
    bool have_key = false;
    bool key_is_merge = false;
    std::string key;
    YAML::Mark key_mark;
    std::vector<json> merged;  // maps merged in with `<<`, first has precedence
  };

  // A value remembered for its anchor, with its size and height for the limits.
  struct Anchored {
    json value;
    int64_t nodes = 0;
    int height = 0;
  };

  void Fail(const YAML::Mark& mark, absl::string_view message) {
    if (status_.ok()) status_ = absl::InvalidArgumentError(absl::StrCat(MarkLabel(mark), message));
  }

  void FailLimit(const YAML::Mark& mark, absl::string_view message) {
    if (!status_.ok()) return;
    Fail(mark, message);
    limit_exceeded_ = true;
  }

  void FailNesting(const YAML::Mark& mark, bool through_alias) {
    FailLimit(mark, absl::StrCat("mappings and sequences nest deeper than ",
                                 limits::kMaxNestingDepth, " levels",
                                 through_alias ? " (through an alias)" : ""));
  }

  // Charges `nodes` materialised nodes to the file's budget; false (and the error) when that
  // exceeds it.
  bool Charge(int64_t nodes, const YAML::Mark& mark) {
    if (!status_.ok()) return false;
    budget_->used += nodes;
    if (budget_->used <= budget_->limit) return true;
    FailLimit(mark, absl::StrCat("anchors and aliases expand the file to more than ",
                                 budget_->limit, " nodes, the limit for ", budget_->input_bytes,
                                 " bytes of YAML (an alias bomb?)"));
    return false;
  }

  void Push(bool is_map, const YAML::Mark& mark, YAML::anchor_t anchor) {
    if (!status_.ok()) return;
    if (static_cast<int64_t>(stack_.size()) + 1 > limits::kMaxNestingDepth) {
      return FailNesting(mark, /*through_alias=*/false);
    }
    if (!Charge(1, mark)) return;
    Frame frame;
    frame.is_map = is_map;
    frame.value = is_map ? json::object() : json::array();
    frame.anchor = anchor;
    frame.start_mark = mark;
    stack_.push_back(std::move(frame));
  }

  void Pop() {
    if (!status_.ok() || stack_.empty()) return;
    Frame frame = std::move(stack_.back());
    stack_.pop_back();
    if (frame.is_map) {
      // Moved, not copied: the merged maps are this frame's own copies (charged when added).
      for (json& merged : frame.merged) {
        for (auto it = merged.begin(); it != merged.end(); ++it) {
          if (!frame.value.contains(it.key())) frame.value[it.key()] = std::move(it.value());
        }
      }
    }
    Add(std::move(frame.value), "", false, frame.start_mark, frame.anchor, frame.nodes,
        frame.height);
  }

  // Adds a finished node (`nodes` in its subtree, `height` levels of collections) to its parent
  // (or makes it the document root).
  void Add(json value, const std::string& raw, bool is_merge_key, const YAML::Mark& mark,
           YAML::anchor_t anchor, int64_t nodes, int height) {
    if (!status_.ok()) return;
    if (anchor != 0) {
      if (!Charge(nodes, mark)) return;  // the copy kept for aliases
      anchors_[anchor] = Anchored{value, nodes, height};
    }
    if (stack_.empty()) {
      root_ = std::move(value);
      return;
    }
    Frame& top = stack_.back();
    top.nodes += nodes;
    top.height = std::max(top.height, height + 1);
    if (!top.is_map) {
      top.value.push_back(std::move(value));
      return;
    }
    if (!top.have_key) {
      top.have_key = true;
      top.key_is_merge = is_merge_key;
      top.key_mark = mark;
      if (value.is_string()) {
        top.key = value.get<std::string>();
      } else if (value.is_boolean()) {
        top.key = value.get<bool>() ? "true" : "false";
      } else if (value.is_number_integer()) {
        top.key = value.dump();
      } else if (value.is_null() || value.is_number()) {
        top.key = raw.empty() ? value.dump() : raw;
      } else {
        Fail(mark, "mapping keys must be scalars");
      }
      return;
    }
    top.have_key = false;
    if (top.key_is_merge) {
      if (value.is_object()) {
        top.merged.push_back(std::move(value));
      } else if (value.is_array() &&
                 std::all_of(value.begin(), value.end(), [](const json& v) {
                   return v.is_object();
                 })) {
        for (json& v : value) top.merged.push_back(std::move(v));
      } else {
        Fail(top.key_mark, "merge key << needs a mapping or a sequence of mappings");
      }
      return;
    }
    if (top.value.contains(top.key)) {
      return Fail(top.key_mark, absl::StrCat("duplicate key \"", top.key, "\""));
    }
    top.value[top.key] = std::move(value);
  }

  NodeBudget* budget_;
  YAML::Mark document_mark_;
  absl::Status status_;
  bool limit_exceeded_ = false;
  json root_;
  std::vector<Frame> stack_;
  std::map<YAML::anchor_t, Anchored> anchors_;
};

// What is left of one file's object limit (input_limits.h).
struct ObjectRoom {
  size_t left = limits::kMaxManifestObjectsPerFile;
  bool exceeded = false;  // reported once; the file's other objects are then dropped
};

// Checks one top-level document (or list item) and appends it, flattening lists.
void AddObject(json object, const std::string& file, int document_index, int item_index,
               ObjectRoom& room, std::vector<ManifestObject>& out,
               std::vector<std::string>& errors) {
  if (room.exceeded) return;
  ManifestObject mo{file, document_index, json(), item_index};
  auto fail = [&](absl::string_view message) {
    errors.push_back(absl::StrCat(mo.Location(), ": ", message));
  };
  if (!object.is_object()) {
    return fail(
        absl::StrCat("expected a Kubernetes object (a mapping), got ", meta::JsonTypeName(object)));
  }
  for (const char* field : {"apiVersion", "kind"}) {
    auto it = object.find(field);
    if (it == object.end() || !it->is_string() || it->get_ref<const std::string&>().empty()) {
      return fail(absl::StrCat("object has no \"", field, "\" (every manifest needs apiVersion and kind)"));
    }
  }
  const std::string kind = object["kind"].get<std::string>();
  const bool is_list = kind == "List" || (absl::EndsWith(kind, "List") && object.contains("items"));
  if (!is_list) {
    if (room.left == 0) {
      room.exceeded = true;
      return fail(absl::StrCat("the file holds more than ", limits::kMaxManifestObjectsPerFile,
                               " objects, the limit per file; split it"));
    }
    --room.left;
    mo.object = std::move(object);
    out.push_back(std::move(mo));
    return;
  }
  json& items = object["items"];
  if (items.is_null()) return;  // an empty list as kubectl prints it (`items: []` or null)
  if (!items.is_array()) {
    return fail(absl::StrCat(kind, ": items must be a list, got ", meta::JsonTypeName(items)));
  }
  const std::string api_version = object["apiVersion"].get<std::string>();
  const std::string item_kind = kind == "List" ? "" : kind.substr(0, kind.size() - 4);
  for (size_t i = 0; i < items.size(); ++i) {
    json& item = items[i];
    // Typed lists from the API server (ResourceSliceList) omit the items' apiVersion and kind.
    if (item.is_object() && !item_kind.empty()) {
      if (!item.contains("kind") || item["kind"].is_null()) item["kind"] = item_kind;
      if (!item.contains("apiVersion") || item["apiVersion"].is_null()) {
        item["apiVersion"] = api_version;
      }
    }
    AddObject(std::move(item), file, document_index, static_cast<int>(i), room, out, errors);
    if (room.exceeded) return;
  }
}

void ParseJsonText(absl::string_view text, const std::string& name,
                   std::vector<ManifestObject>& out, std::vector<std::string>& errors) {
  if (absl::StripAsciiWhitespace(text).empty()) return;  // an empty file holds no objects
  absl::StatusOr<json> value = limits::ParseJson(text, name, limits::kMaxManifestFileBytes);
  if (!value.ok()) {
    errors.emplace_back(value.status().message());
    return;
  }
  if (value->is_null()) return;
  ObjectRoom room;
  AddObject(*std::move(value), name, 0, -1, room, out, errors);
}

void ParseYamlText(absl::string_view text, const std::string& name,
                   std::vector<ManifestObject>& out, std::vector<std::string>& errors) {
  std::istringstream in{std::string(text)};
  int document = 0;
  NodeBudget budget;
  budget.limit = limits::YamlNodeBudget(text.size());
  budget.input_bytes = text.size();
  ObjectRoom room;
  // The document being built; outside the try block so that a yaml-cpp exception raised after
  // the builder hit a limit (its own recursion guard, deeper than ours) reports the limit.
  std::optional<JsonBuilder> builder;
  auto builder_error = [&]() {
    return absl::StrCat(name, ": ", DocumentLabel(document), ": ",
                        builder->limit_exceeded() ? "" : "invalid YAML: ",
                        builder->status().message());
  };
  try {
    YAML::Parser parser(in);
    // yaml-cpp 0.7 can return the same empty document forever on some malformed input (a token
    // no rule consumes, e.g. a stray ','): stop when a document starts where the previous one
    // did, and never produce more documents than the text has bytes.
    int previous_start = -1;
    while (true) {
      builder.emplace(&budget);
      if (!parser.HandleNextDocument(*builder)) break;
      const YAML::Mark& start = builder->document_mark();
      if ((start.pos == previous_start && builder->root().is_null()) ||
          document > static_cast<int>(text.size())) {
        errors.push_back(absl::StrCat(name, ": ", DocumentLabel(document), ": invalid YAML: ",
                                      MarkLabel(start), "unexpected token"));
        break;
      }
      if (document >= limits::kMaxYamlDocumentsPerFile) {
        errors.push_back(absl::StrCat(name, ": ", DocumentLabel(document),
                                      ": the file holds more than ",
                                      limits::kMaxYamlDocumentsPerFile,
                                      " YAML documents, the limit per file; split it"));
        break;
      }
      previous_start = start.pos;
      if (!builder->status().ok()) {
        errors.push_back(builder_error());
        if (builder->limit_exceeded()) break;  // the rest of the file is not worth the work
      } else if (!builder->root().is_null()) {
        AddObject(std::move(builder->root()), name, document, -1, room, out, errors);
        if (room.exceeded) break;
      }
      ++document;
    }
  } catch (const YAML::Exception& e) {
    if (builder && builder->limit_exceeded()) {
      errors.push_back(builder_error());
    } else {
      errors.push_back(absl::StrCat(name, ": ", DocumentLabel(document), ": invalid YAML: ",
                                    MarkLabel(e.mark), e.msg));
    }
  } catch (const std::exception& e) {  // e.g. std::bad_alloc from a hostile input
    errors.push_back(absl::StrCat(name, ": ", DocumentLabel(document), ": ", e.what()));
  }
}

void ParseInto(absl::string_view text, const std::string& name, std::vector<ManifestObject>& out,
               std::vector<std::string>& errors) {
  if (absl::Status size = limits::CheckSize(text.size(), limits::kMaxManifestFileBytes, name,
                                            "the file");
      !size.ok()) {
    errors.emplace_back(size.message());
    return;
  }
  const std::string ext =
      absl::AsciiStrToLower(std::filesystem::path(name).extension().string());
  if (ext == ".json") return ParseJsonText(text, name, out, errors);
  if (ext != ".yaml" && ext != ".yml") {
    const size_t first = text.find_first_not_of(" \t\r\n");
    if (first != absl::string_view::npos && text[first] == '{') {
      std::vector<ManifestObject> objects;
      std::vector<std::string> problems;
      ParseJsonText(text, name, objects, problems);
      if (problems.empty()) {
        for (ManifestObject& o : objects) out.push_back(std::move(o));
        return;
      }
    }
  }
  ParseYamlText(text, name, out, errors);
}

absl::Status JoinErrors(absl::StatusCode code, const std::vector<std::string>& errors) {
  return absl::Status(code, absl::StrJoin(errors, "\n"));
}

bool IsManifestFile(const std::filesystem::path& path) {
  const std::string ext = path.extension().string();
  return ext == ".yaml" || ext == ".yml" || ext == ".json";
}

}  // namespace

std::string ManifestObject::Location() const {
  std::string location = absl::StrCat(file, " (", DocumentLabel(document_index));
  if (item_index >= 0) absl::StrAppend(&location, ", items[", item_index, "]");
  location += ")";
  return location;
}

std::string ManifestObject::Describe() const {
  std::string kind = "object";
  std::string name;
  if (object.is_object()) {
    if (auto it = object.find("kind"); it != object.end() && it->is_string()) {
      kind = it->get<std::string>();
    }
    if (auto meta = object.find("metadata"); meta != object.end() && meta->is_object()) {
      auto ns = meta->find("namespace");
      if (ns != meta->end() && ns->is_string() && !ns->get_ref<const std::string&>().empty()) {
        name = ns->get<std::string>() + "/";
      }
      auto n = meta->find("name");
      if (n != meta->end() && n->is_string() && !n->get_ref<const std::string&>().empty()) {
        name += n->get<std::string>();
      } else {
        name.clear();
      }
    }
  }
  if (name.empty()) return absl::StrCat(kind, " <unnamed>");
  return absl::StrCat(kind, " \"", name, "\"");
}

absl::StatusOr<std::vector<ManifestObject>> ParseManifests(std::string_view text,
                                                           std::string name) {
  std::vector<ManifestObject> out;
  std::vector<std::string> errors;
  ParseInto(absl::string_view(text.data(), text.size()), name, out, errors);
  if (!errors.empty()) return JoinErrors(absl::StatusCode::kInvalidArgument, errors);
  return out;
}

absl::StatusOr<std::vector<ManifestObject>> ReadManifests(const std::vector<std::string>& paths) {
  std::vector<ManifestObject> out;
  std::vector<std::string> errors;
  absl::StatusCode code = absl::StatusCode::kOk;
  auto io_error = [&](const absl::Status& status) {
    if (code == absl::StatusCode::kOk) code = status.code();
    errors.emplace_back(status.message());
  };
  for (const std::string& path : paths) {
    std::vector<std::string> files;
    if (absl::Status listed = ListManifestFiles(path, &files); !listed.ok()) io_error(listed);
    for (const std::string& file : files) {
      absl::StatusOr<std::string> text = ReadManifestFile(file);
      if (!text.ok()) {
        io_error(text.status());
        continue;
      }
      const size_t before = errors.size();
      ParseInto(*text, file, out, errors);
      if (errors.size() != before && code == absl::StatusCode::kOk) {
        code = absl::StatusCode::kInvalidArgument;
      }
    }
  }
  if (!errors.empty()) return JoinErrors(code, errors);
  return out;
}

absl::Status ListManifestFiles(const std::string& path, std::vector<std::string>* files) {
  std::error_code ec;
  const std::filesystem::file_status st = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(st)) {
    return absl::NotFoundError(absl::StrCat(path, ": no such file or directory"));
  }
  if (!std::filesystem::is_directory(st)) {
    files->push_back(path);
    return absl::OkStatus();
  }
  std::vector<std::string> found;
  std::filesystem::recursive_directory_iterator it(path, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file(ec) && IsManifestFile(it->path())) {
      found.push_back(it->path().string());
    }
  }
  absl::Status status;
  if (ec) {
    status = absl::ErrnoToStatus(ec.value(), absl::StrCat(path, ": cannot list directory"));
  }
  std::sort(found.begin(), found.end());
  files->insert(files->end(), found.begin(), found.end());
  return status;
}

absl::StatusOr<std::string> ReadManifestFile(const std::string& path, size_t spare_capacity) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return absl::ErrnoToStatus(errno, absl::StrCat(path, ": cannot open"));
  // Read straight into one buffer of the file's size (plus the spare capacity) when the size is
  // known; files without one (pipes), or that grow meanwhile, are read on in chunks.
  // Files over the limit are refused before they are read (by their size, or, for pipes, once
  // more than the limit has arrived).
  constexpr size_t kMax = limits::kMaxManifestFileBytes;
  std::string contents;
  struct stat st;
  if (::fstat(::fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
    const size_t size = static_cast<size_t>(st.st_size);
    if (absl::Status s = limits::CheckSize(size, kMax, path, "the file"); !s.ok()) {
      std::fclose(f);
      return s;
    }
    contents.reserve(size + spare_capacity);
    contents.resize(size);
    contents.resize(std::fread(contents.data(), 1, size, f));
  }
  char chunk[65536];
  while (!std::feof(f) && !std::ferror(f)) {
    const size_t n = std::fread(chunk, 1, sizeof(chunk), f);
    contents.append(chunk, n);
    if (contents.size() > kMax) {
      std::fclose(f);
      return absl::InvalidArgumentError(absl::StrCat(path, ": the file is over the limit of ",
                                                     kMax, " bytes"));
    }
  }
  const bool failed = std::ferror(f) != 0;
  const int read_errno = errno;
  std::fclose(f);
  if (failed) return absl::ErrnoToStatus(read_errno, absl::StrCat(path, ": cannot read"));
  if (contents.capacity() < contents.size() + spare_capacity) {
    contents.reserve(contents.size() + spare_capacity);
  }
  return contents;
}

void AppendManifests(std::string_view text, const std::string& name,
                     std::vector<ManifestObject>* out, std::vector<std::string>* errors) {
  ParseInto(absl::string_view(text.data(), text.size()), name, *out, *errors);
}

}  // namespace gpuprofile::dra
