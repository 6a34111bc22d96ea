// File: controller/core/input_limits.h
// Limits on what the operator reads from users (manifest files for `render` and `cel match`,
// kubeconfig files, exec-plugin output) and from the cluster (API responses, watch events), so
// that a hostile or broken input ends in a clear error instead of exhausting memory, time or the
// stack. Every reader applies these constants; each says why it has its value.
//
// The model is Kubernetes' own: since CVE-2019-11253 its YAML decoder (go-yaml) counts the nodes
// it builds and refuses documents whose aliases expand them far beyond what was written (up to
// 99% of the work may come from aliases in documents under 400,000 decode steps, shrinking to 10%
// at 4,000,000); the API server refuses request bodies over 3 MiB (twice etcd's 1.5 MiB object
// limit), and Go's encoding/json, which it decodes with, refuses nesting deeper than 10,000.
//
// CheckJsonText and ParseJson are pure. Thread-safe (no state).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::limits {

// Deepest nesting of mappings/sequences (YAML) or objects/arrays (JSON) accepted anywhere. Real
// Kubernetes objects nest a few dozen levels (a CRD's openAPIV3Schema is among the deepest, about
// 30). 256 is far beyond that, low enough that every recursive consumer of a decoded value
// (nlohmann::json copies, comparisons and dump, the field decoders) stays well inside a thread's
// stack, also under AddressSanitizer, and below yaml-cpp 0.7's own recursion guard (it gives up
// at 499 levels with nothing but "bad file"), so that this limit and its message come first.
inline constexpr int kMaxNestingDepth = 256;

// Largest manifest file `render` and `cel match` read. The largest fleet benchmarked, 5,000 nodes
// (Kubernetes' supported maximum) of 8 GPUs as `kubectl get resourceslices -o json` prints it, is
// 74 MB; 256 MiB leaves 3.5 times that, while refusing files that could only be mistakes or
// attacks before they are read into memory.
inline constexpr size_t kMaxManifestFileBytes = size_t{256} << 20;

// Most objects (list items count one each) one manifest file may hold. 5,000 nodes with 100
// ResourceSlices each is 500,000; beyond 1,000,000 the input is not a cluster's.
inline constexpr size_t kMaxManifestObjectsPerFile = 1'000'000;

// Most YAML documents (`---`) in one file, empty ones included. A stream of one object per
// document for the largest fleet above is 5,000-40,000 documents; the limit bounds the work a file
// of nothing but separators can cause.
inline constexpr int kMaxYamlDocumentsPerFile = 100'000;

// The YAML node budget. Building JSON from YAML materialises a node for every scalar and
// collection parsed, every node an alias copies in, and every node copied to remember an anchor.
// A file may materialise at most kYamlNodeBudgetFloor + kYamlNodesPerInputByte × its size in
// bytes. Without aliases a file has at most one node per two bytes (`-\n`), so only aliasing can
// hit the budget: small files may expand up to 50,000 nodes (a few MB of JSON; go-yaml lets 99% of
// a small document come from aliases), larger ones about twice what they spell out. The
// "billion laughs" document (9 levels of 10 aliases: 10^9 nodes from 1 KB) fails after about
// 52,000 nodes: `render` exits in a fraction of a second, 3.4 MB above an idle process.
inline constexpr int64_t kYamlNodeBudgetFloor = 50'000;
inline constexpr int64_t kYamlNodesPerInputByte = 2;

// The node budget for a YAML text of `input_bytes` bytes (see above).
int64_t YamlNodeBudget(size_t input_bytes);

// Largest kubeconfig file. Kubeconfigs with embedded certificates for hundreds of clusters stay
// under 1 MiB; kubectl itself sets no limit, 16 MiB is generous and still bounds the YAML tree.
inline constexpr size_t kMaxKubeconfigBytes = size_t{16} << 20;

// Largest output of a kubeconfig exec credential plugin (an ExecCredential: a token or a client
// certificate and key, a few KiB).
inline constexpr size_t kMaxExecCredentialBytes = size_t{1} << 20;

// Largest single object read from the API server (a watch event's object, a GET). The API server
// stores at most 1.5 MiB per object (etcd) and accepts at most 3 MiB per request; 16 MiB covers
// any object a server can hold with room for encoding differences.
inline constexpr size_t kMaxApiObjectBytes = size_t{16} << 20;

// Largest API response body decoded as JSON (a list page). The watcher lists in pages of at most
// 500 objects; even 500 objects of etcd's 1.5 MiB maximum (750 MiB) stay under 1 GiB.
inline constexpr size_t kMaxApiResponseBytes = size_t{1} << 30;

// Largest watch event line (one object plus its {type, object} envelope).
inline constexpr size_t kMaxWatchEventBytes = kMaxApiObjectBytes + 4096;

// Checks JSON text against `max_bytes` and kMaxNestingDepth without parsing it (one linear scan:
// brackets outside strings). It accepts all valid JSON within the limits and makes no claim on
// invalid JSON (the parser reports that). Errors (InvalidArgument) start with `what` (a file name
// or "GET /api/..."), e.g. `what: JSON nests deeper than 256 levels (at byte 257, line 1)`.
absl::Status CheckJsonText(absl::string_view text, absl::string_view what, size_t max_bytes);

// Parses JSON after CheckJsonText; never throws. Errors: CheckJsonText's, or InvalidArgument
// `what: invalid JSON: <nlohmann's positioned message>`.
absl::StatusOr<nlohmann::json> ParseJson(absl::string_view text, absl::string_view what,
                                         size_t max_bytes);

// `what: <noun> is <size> bytes, over the limit of <max> bytes` (InvalidArgument) when
// size > max_bytes, else OK.
absl::Status CheckSize(size_t size, size_t max_bytes, absl::string_view what,
                       absl::string_view noun);

}  // namespace gpuprofile::limits
