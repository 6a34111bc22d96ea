// File: e2e/tests/release_emulators.h
// For the validation suites that ask one kube-emulator per release (and feature gates) many
// questions: the emulator of a (release, gates) pair, started on first use and kept for the
// test program; the resource.k8s.io version such tests write in; and the wording of the API
// server's DNS name errors, which several of their expectations quote. Not thread-safe: gtest
// runs a program's tests on one thread.
#pragma once

#include <string>

#include "test/testing/emulator_process.h"

namespace gpuprofile::e2e::testing {

EmulatorProcess& SharedEmulator(const std::string& kube, const std::string& gates = "");

// The newest resource.k8s.io version `kube` serves: v1beta1 on 1.32, v1beta2 on 1.33, v1 after.
std::string NewestDraVersion(const std::string& kube);

// apimachinery's messages for an invalid DNS-1123 label and subdomain.
inline constexpr char kDnsLabelMessage[] =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
inline constexpr char kDnsSubdomainMessage[] =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

}  // namespace gpuprofile::e2e::testing
