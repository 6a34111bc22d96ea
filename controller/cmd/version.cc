// File: controller/cmd/version.cc
#include "controller/cmd/version.h"

#include <cstdio>

namespace gpuprofile::cmd {

int RunVersion() {
  std::printf("gpu-profile-controller %s\n", kVersion);
  return 0;
}

}  // namespace gpuprofile::cmd
