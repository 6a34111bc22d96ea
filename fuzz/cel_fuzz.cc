// File: fuzz/cel_fuzz.cc
// libFuzzer entry point for the CEL engine. GPO_FUZZ_MODE selects what runs on each input:
//   parse    -- the parser alone, with every optional syntax on;
//   evaluate -- compile (checked and unchecked) in the DRA selector environment and in the
//               general environment, then evaluate against a realistic NVIDIA device.
// Any crash, sanitizer report, leak or hang is a bug: no input may take the engine down.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "controller/cel/environment.h"
#include "controller/cel/internal/parser.h"
#include "controller/cel/program.h"
#include "controller/dra_cel/device_value.h"

namespace {

using gpuprofile::cel::Value;

const Value& SampleDevice() {
  static const Value* const kDevice = [] {
    using gpuprofile::dra::AttributeValue;
    const gpuprofile::dra::Device d =
        gpuprofile::dra::DeviceBuilder("gpu-0")
            .Driver("gpu.nvidia.com")
            .Pool("a100-node-1")
            .Node("a100-node-1")
            .Attribute("type", AttributeValue::String("gpu"))
            .Attribute("productName", AttributeValue::String("NVIDIA A100-SXM4-40GB"))
            .Attribute("architecture", AttributeValue::String("Ampere"))
            .Attribute("cudaComputeCapability", AttributeValue::Version("8.0.0"))
            .Attribute("driverVersion", AttributeValue::Version("550.127.8"))
            .Attribute("resource.kubernetes.io/pcieRoot", AttributeValue::String("pci0000:00"))
            .Attribute("index", AttributeValue::Int(3))
            .Capacity("memory", *gpuprofile::Quantity::Parse("40Gi"))
            .Build();
    return new Value(gpuprofile::cel::MakeDeviceValue(d));
  }();
  return *kDevice;
}

void CompileAndRun(const std::string& expr,
                   std::shared_ptr<const gpuprofile::cel::Environment> env, bool check) {
  gpuprofile::cel::CompileOptions options;
  options.type_check = check;
  auto program = gpuprofile::cel::Compile(expr, std::move(env), options);
  if (!program.ok()) return;
  Value v = (*program)->Evaluate({SampleDevice()});
  (void)v.DebugString();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const bool kParseOnly = [] {
    const char* mode = std::getenv("GPO_FUZZ_MODE");
    return mode != nullptr && std::strcmp(mode, "parse") == 0;
  }();
  std::string expr(reinterpret_cast<const char*>(data), size);
  if (kParseOnly) {
    auto ast = gpuprofile::cel::internal::Parse(expr);
    if (ast.ok()) (void)gpuprofile::cel::internal::DebugString(*ast->root);
    return 0;
  }
  static const auto kDra = gpuprofile::cel::Environment::ForDeviceSelectors(
      gpuprofile::KubeVersion::Newest(), gpuprofile::cel::ExpressionMode::kStoredExpression);
  static const auto kStandard = gpuprofile::cel::Environment::Standard(
      {{"device", gpuprofile::cel::Type::Dyn()}});
  CompileAndRun(expr, kDra, true);
  CompileAndRun(expr, kStandard, false);
  return 0;
}
