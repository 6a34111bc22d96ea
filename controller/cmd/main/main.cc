// File: controller/cmd/main/main.cc
// Entry point of gpu-profile-controller: dispatches to the subcommands.
#include <cstdio>
#include <cstring>

#include "controller/cmd/version.h"

int main(int argc, char** argv) {
  if (argc >= 2 && std::strcmp(argv[1], "version") == 0) return gpuprofile::cmd::RunVersion();
  std::fprintf(stderr, "usage: gpu-profile-controller version\n");
  return 2;
}
