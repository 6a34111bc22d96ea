// File: test/testing/test_main.cc
// Shared gtest entry point for every layer's test binary.
#include "gtest/gtest.h"

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
