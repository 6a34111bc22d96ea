// File: e2e/emulator/review_handlers.h
// The two review APIs delegated authentication and authorization call (what controller-runtime's
// secure metrics filter, kube-rbac-proxy and aggregated API servers use), answered as
// kube-apiserver answers them: create-only, never stored, 201 with the request's object and its
// status filled in.
//  - TokenReview (authentication.k8s.io/v1): spec.token is checked against the emulator's bearer
//    tokens (--token-file and the admin token of --kubeconfig-out); status.authenticated,
//    status.user {username, uid, groups} and status.audiences (the requested audiences that the
//    API server accepts, else the API server's own). A missing token is kube-apiserver's 400
//    "token is required for TokenReview in authentication".
//  - SubjectAccessReview (authorization.k8s.io/v1): spec.resourceAttributes or
//    spec.nonResourceAttributes for spec.user / spec.groups, evaluated by the RBAC evaluator
//    (auth.h) under --authorization RBAC, allowed for everyone under AlwaysAllow. status.allowed,
//    status.denied (always false: RBAC only ever allows or has no opinion, as in
//    kube-apiserver), status.reason (which binding allowed it, or which referenced role is
//    missing). A spec without attributes or without a subject is kube-apiserver's 422 Invalid
//    with its field paths and messages; the path of the attributes error follows the release
//    (spec.resourceAttributes up to 1.36; spec from 1.37, where declarative validation took
//    over the union check).
// Whether the caller may create the review at all is the front end's RBAC check, as for any
// create. Pure functions; thread-safe.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "controller/core/kube_version.h"
#include "e2e/emulator/auth.h"
#include "e2e/emulator/http_types.h"

namespace gpuprofile::e2e {

inline constexpr char kTokenReviewsPath[] = "/apis/authentication.k8s.io/v1/tokenreviews";
inline constexpr char kSubjectAccessReviewsPath[] =
    "/apis/authorization.k8s.io/v1/subjectaccessreviews";

// The audience the emulator's API server accepts tokens for (kube-apiserver's --api-audiences
// default, the service-account issuer of kind and kubeadm clusters).
inline constexpr char kApiAudience[] = "https://kubernetes.default.svc.cluster.local";

// Who a bearer token is, or nullopt when it is not one the emulator accepts.
using TokenAuthenticator = std::function<std::optional<UserInfo>(const std::string& token)>;

// A POST of a TokenReview (body: the JSON object).
HttpResponse TokenReviewResponse(const HttpRequest& request,
                                 const TokenAuthenticator& authenticate);

// A POST of a SubjectAccessReview, decided by RBAC over `rbac` (`rbac_mode`) or allowed
// (AlwaysAllow).
HttpResponse SubjectAccessReviewResponse(const HttpRequest& request, const RbacObjects& rbac,
                                         bool rbac_mode, const KubeVersion& kube);

}  // namespace gpuprofile::e2e
