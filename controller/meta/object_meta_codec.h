// File: controller/meta/object_meta_codec.h
// JSON decoding and encoding of ObjectMeta (and OwnerReference), shared by every kind's codec.
//
// Decoding is strict about types (labels and annotations are string maps, finalizers a string
// list, ownerReferences a list of {apiVersion, kind, name, uid, controller, blockOwnerDeletion})
// and about what the API server would reject anyway (label keys must be qualified names, label
// values label values, annotation keys qualified names); unknown fields are ignored (metadata
// carries much the operator does not read: managedFields, generateName...). It does not require a
// name: each kind's decoder decides what its names must be.
//
// Encoding (nlohmann::ordered_json, keys in this order): name, namespace, labels, annotations,
// finalizers, then, with include_server_fields, ownerReferences, uid, resourceVersion,
// generation, creationTimestamp, deletionTimestamp. Empty strings, zero generation, empty maps
// and lists are omitted. Without include_server_fields the output is what `render` prints: the
// same input gives the same bytes.
//
// SameDesiredMetadata is the metadata half of drift detection for the objects the operator owns.
// Pure; thread-safe.
#pragma once

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "controller/meta/field_codec.h"
#include "controller/meta/object_meta.h"
#include "nlohmann/json.hpp"

namespace gpuprofile::meta {

// Decodes `metadata` (the value of an object's "metadata" member); problems are reported to
// `errors` under `path` (normally "metadata") and the fields that decoded are returned.
ObjectMeta DecodeObjectMeta(const nlohmann::json& metadata, absl::string_view path,
                            FieldErrors* errors);

// The same, as a status: InvalidArgument listing every problem, one "<path>: <reason>" per line.
absl::StatusOr<ObjectMeta> DecodeObjectMeta(const nlohmann::json& metadata,
                                            absl::string_view path = "metadata");

nlohmann::ordered_json EncodeObjectMeta(const ObjectMeta& meta, bool include_server_fields);

nlohmann::ordered_json EncodeOwnerReference(const OwnerReference& ref);

// Whether `actual` (read from a server) carries the metadata writing `desired` would give it:
// name and namespace equal; every desired label, annotation and owner reference present in
// actual with the same value (other tools may add their own); server-only fields (uid,
// resourceVersion, generation, timestamps) and finalizers ignored.
bool SameDesiredMetadata(const ObjectMeta& desired, const ObjectMeta& actual);

}  // namespace gpuprofile::meta
