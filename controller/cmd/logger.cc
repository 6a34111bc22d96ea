// File: controller/cmd/logger.cc
#include "controller/cmd/logger.h"

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "nlohmann/json.hpp"
#include "spdlog/sinks/stdout_sinks.h"
#include "spdlog/spdlog.h"

namespace gpuprofile::cmd {
namespace {

const char* LevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug:
      return "debug";
    case LogLevel::kInfo:
      return "info";
    case LogLevel::kWarn:
      return "warn";
    case LogLevel::kError:
      return "error";
  }
  return "info";
}

}  // namespace

absl::StatusOr<LogLevel> ParseLogLevel(absl::string_view text) {
  if (text == "debug") return LogLevel::kDebug;
  if (text == "info") return LogLevel::kInfo;
  if (text == "warn" || text == "warning") return LogLevel::kWarn;
  if (text == "error") return LogLevel::kError;
  return absl::InvalidArgumentError(
      absl::StrCat("--log-level: \"", text, "\" is not one of debug, info, warn, error"));
}

absl::StatusOr<LogFormat> ParseLogFormat(absl::string_view text) {
  if (text == "json") return LogFormat::kJson;
  if (text == "text") return LogFormat::kText;
  return absl::InvalidArgumentError(
      absl::StrCat("--log-format: \"", text, "\" is not one of json, text"));
}

Logger::Logger(LogFormat format, LogLevel level, std::string name)
    : format_(format), level_(level), name_(std::move(name)) {
  sink_ =
      std::make_shared<spdlog::logger>(name_, std::make_shared<spdlog::sinks::stderr_sink_mt>());
  sink_->set_pattern("%v");
  sink_->set_level(spdlog::level::trace);
  sink_->flush_on(spdlog::level::trace);
}

std::string Logger::Format(LogLevel level, absl::string_view message,
                           const LogFields& fields) const {
  const std::string ts = absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", absl::Now(), absl::UTCTimeZone());
  if (format_ == LogFormat::kJson) {
    nlohmann::ordered_json line;
    line["ts"] = ts;
    line["level"] = LevelName(level);
    line["logger"] = name_;
    line["msg"] = std::string(message);
    for (const auto& [key, value] : fields) line[key] = value;
    // Messages carry user data (names, API messages): never throw on invalid UTF-8.
    return line.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  }
  std::string out = absl::StrCat(ts, " ", LevelName(level), " ", message);
  for (const auto& [key, value] : fields) {
    const bool quote = value.find_first_of(" \t\"=") != std::string::npos || value.empty();
    absl::StrAppend(
        &out, " ", key, "=",
        quote ? nlohmann::json(value).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
              : value);
  }
  return out;
}

void Logger::Log(LogLevel level, absl::string_view message, const LogFields& fields) const {
  if (static_cast<int>(level) < static_cast<int>(level_)) return;
  sink_->info(Format(level, message, fields));
}

}  // namespace gpuprofile::cmd
