// File: e2e/tests/gitops_argo_health.cc
#include "e2e/tests/gitops_argo_health.h"

#include <atomic>
#include <cstdio>
#include <fstream>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "test/testing/emulator_process.h"

namespace gpuprofile::e2e::testing {
namespace {

using json = nlohmann::json;

std::string LuaString(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c >= 32 && c < 127) {
      out.push_back(static_cast<char>(c));
    } else {
      // Three digits always, so that a following digit cannot join the escape.
      out += absl::StrFormat("\\%03d", c);
    }
  }
  return out + "\"";
}

// Prints "<status>\n<message>" (the message may hold newlines: it is the rest of the output).
constexpr char kDriver[] = R"(local input, script = arg[1], arg[2]
dofile(input)
local chunk, err = loadfile(script)
if not chunk then
  io.stderr:write("cannot load the health check: " .. tostring(err) .. "\n")
  os.exit(2)
end
local ok, hs = pcall(chunk)
if not ok then
  io.stderr:write("the health check raised an error: " .. tostring(hs) .. "\n")
  os.exit(3)
end
if type(hs) ~= "table" then
  io.stderr:write("the health check returned " .. type(hs) .. ", not a table\n")
  os.exit(4)
end
io.write(tostring(hs.status), "\n", hs.message == nil and "" or tostring(hs.message))
)";

bool WriteText(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  return static_cast<bool>(out);
}

}  // namespace

std::string LuaLiteral(const json& value) {
  switch (value.type()) {
    case json::value_t::null:
      return "nil";
    case json::value_t::boolean:
      return value.get<bool>() ? "true" : "false";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
      return value.dump();
    case json::value_t::number_float:
      return absl::StrFormat("%.17g", value.get<double>());
    case json::value_t::string:
      return LuaString(value.get<std::string>());
    case json::value_t::array: {
      std::vector<std::string> items;
      for (const json& v : value) items.push_back(LuaLiteral(v));
      return absl::StrCat("{", absl::StrJoin(items, ", "), "}");
    }
    case json::value_t::object: {
      std::vector<std::string> items;
      for (const auto& [k, v] : value.items()) {
        items.push_back(absl::StrCat("[", LuaString(k), "] = ", LuaLiteral(v)));
      }
      return absl::StrCat("{", absl::StrJoin(items, ", "), "}");
    }
    default:
      return "nil";
  }
}

absl::StatusOr<ArgoHealth> EvaluateArgoHealth(const json& object, const std::string& health_lua,
                                              const std::string& workdir, const std::string& lua) {
  static std::atomic<int> counter{0};
  const int n = counter++;
  const std::string input = absl::StrCat(workdir, "/argo-input-", n, ".lua");
  const std::string driver = absl::StrCat(workdir, "/argo-driver.lua");
  if (!WriteText(input, absl::StrCat("obj = ", LuaLiteral(object), "\n")) ||
      !WriteText(driver, kDriver)) {
    return absl::InternalError(absl::StrCat("cannot write the Lua input under ", workdir));
  }
  CommandResult r = RunCommand({lua, driver, input, health_lua}, absl::Seconds(30));
  std::remove(input.c_str());
  if (r.exit_code != 0) {
    return absl::InternalError(absl::StrCat(lua, " exited with ", r.exit_code, ": ", r.out));
  }
  const size_t newline = r.out.find('\n');
  if (newline == std::string::npos) {
    return absl::InternalError(absl::StrCat("unexpected output from the driver: ", r.out));
  }
  return ArgoHealth{r.out.substr(0, newline), r.out.substr(newline + 1)};
}

}  // namespace gpuprofile::e2e::testing
