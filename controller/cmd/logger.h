// File: controller/cmd/logger.h
// The operator's structured log: one line per entry on stderr, either JSON
// ({"ts","level","logger","msg", key/values...}, what log pipelines ingest) or text
// ("2026-11-30T00:00:00.000Z INFO msg key=value"), with a minimum level
// (--log-format json|text, --log-level debug|info|warn|error).
// Thread-safety: thread-safe (spdlog's synchronised stderr sink).
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace spdlog {
class logger;
}

namespace gpuprofile::cmd {

enum class LogLevel { kDebug, kInfo, kWarn, kError };
enum class LogFormat { kText, kJson };

absl::StatusOr<LogLevel> ParseLogLevel(absl::string_view text);
absl::StatusOr<LogFormat> ParseLogFormat(absl::string_view text);

using LogFields = std::vector<std::pair<std::string, std::string>>;

class Logger {
 public:
  Logger(LogFormat format, LogLevel level, std::string name = "gpu-profile-operator");
  void Log(LogLevel level, absl::string_view message, const LogFields& fields = {}) const;
  void Debug(absl::string_view m, const LogFields& f = {}) const { Log(LogLevel::kDebug, m, f); }
  void Info(absl::string_view m, const LogFields& f = {}) const { Log(LogLevel::kInfo, m, f); }
  void Warn(absl::string_view m, const LogFields& f = {}) const { Log(LogLevel::kWarn, m, f); }
  void Error(absl::string_view m, const LogFields& f = {}) const { Log(LogLevel::kError, m, f); }

  // The line Log would write (without the newline), for tests.
  std::string Format(LogLevel level, absl::string_view message, const LogFields& fields) const;

 private:
  const LogFormat format_;
  const LogLevel level_;
  const std::string name_;
  std::shared_ptr<spdlog::logger> sink_;
};

}  // namespace gpuprofile::cmd
