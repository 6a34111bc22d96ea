// File: e2e/emulator/discovery.h
// /version, API discovery (aggregated apidiscovery.k8s.io/v2 and the legacy APIVersions /
// APIGroupList / APIResourceList documents) and the OpenAPI v3 documents `kubectl apply` needs
// (one per group/version, every PATCH operation with a fieldValidation parameter, a hash in the
// root document that changes with the content), and the OpenAPI v2 document kubectl reads to
// validate a `kind: List` client-side.
// Pure functions of the registry; thread-compatible.
#pragma once

#include <string>

#include "controller/core/kube_version.h"
#include "e2e/emulator/http_types.h"
#include "e2e/emulator/resource_registry.h"

namespace gpuprofile::e2e {

HttpResponse VersionResponse(const KubeVersion& kube);
// Paths /api, /apis, /api/v1, /apis/<g>, /apis/<g>/<v>; `accept` picks aggregated or legacy.
// Returns status 404 for unknown groups/versions.
HttpResponse DiscoveryResponse(const ResourceRegistry& registry, const std::string& path,
                               const std::string& accept);
// /openapi/v2: one Swagger 2.0 document of every served operation (no definitions), as JSON or,
// when `accept` asks for it, as kubectl's protobuf (gnostic openapi.v2.Document).
HttpResponse OpenApiV2Response(const ResourceRegistry& registry, const KubeVersion& kube,
                               const std::string& accept);
// /openapi/v3 and /openapi/v3/<api/v1|apis/g/v>.
HttpResponse OpenApiResponse(const ResourceRegistry& registry, const std::string& path);

}  // namespace gpuprofile::e2e
