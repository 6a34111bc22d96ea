#!/usr/bin/env python3
"""Validates DeviceClass, ResourceClaimTemplate and ResourceSlice manifests against the official
Kubernetes schemas of one release (test/testdata/schemas, see its README).

    validate.py --kube-version 1.34 FILE_OR_DIR...

Inputs: multi-document YAML, JSON, and `List` / `<Kind>List` objects (items are validated one by
one); directories are walked for .yaml, .yml and .json files. YAML is read like Kubernetes reads
it: timestamps stay strings. Objects of the resource.k8s.io group are validated with
`<kind>-resource-<version>.k8s-<release>.standalone-strict.json` for 1.32-1.34. For Kubernetes 1.35
and later, resource.k8s.io/v1 objects are validated against the official 1.35 OpenAPI v3 document
of that group version (`k8s-1.35-resource.k8s.io-v1-openapi-v3.json`: its `$ref`s resolved,
read strictly: every object schema with properties rejects unknown fields, and a null member
counts as absent, as Go's JSON decoding treats it); v1beta1 and v1beta2 objects keep the 1.34
schemas (1.35-1.37 changed neither). core/v1 ResourceQuota objects are validated, for every
release, against a small hand-written schema (RESOURCE_QUOTA_SCHEMA below: spec.hard a map of
quantities, spec.scopes, spec.scopeSelector; metadata only checked to be an object). Objects of
other groups, and resource.k8s.io kinds without a schema here (ResourceClaim, ...), are skipped
and counted.

Custom resources whose CustomResourceDefinition is in `--crd-dir` (default: the repository's
`crds/`) are validated against the CRD's openAPIV3Schema, read strictly: unknown fields are errors
(as `kubectl apply` with server-side field validation reports them), `x-kubernetes-int-or-string`
and `x-kubernetes-preserve-unknown-fields` are honoured, and `x-kubernetes-validations` (CEL rules)
are not evaluated.

Output: `validated N objects, skipped M` on stdout, or every problem on stderr, one per line, with
the file, the object and the JSON path. Exit 0 when everything is valid, 1 on any invalid object
or unreadable input, 2 on usage errors or when a needed schema file is missing.
"""

import argparse
import json
import os
import re
import sys

try:
    import jsonschema
    import yaml
except ImportError as e:  # pragma: no cover - depends on the host
    sys.stderr.write(
        "validate.py needs python3-jsonschema and python3-yaml (scripts/install-deps.sh): %s\n" % e)
    sys.exit(2)

GROUP = "resource.k8s.io"
KINDS = ("DeviceClass", "ResourceClaimTemplate", "ResourceSlice")
# Kubernetes minor in which each version appears (docs/dra-reference.md §1); newer releases use 1.34's schemas.
INTRODUCED = {"v1beta1": 32, "v1beta2": 33, "v1": 34}
OLDEST_MINOR = 32
NEWEST_SCHEMA_MINOR = 34
# From this release on, resource.k8s.io/v1 objects use the OpenAPI v3 document below.
V3_MINOR = 35
V3_DOCUMENT = "k8s-1.35-resource.k8s.io-v1-openapi-v3.json"
QUANTITY_PATTERN = (r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))"
                    r"(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$")
# Hand-written, not extracted: the part of core/v1 ResourceQuota the operator writes, strictly
# (unknown fields in the object and its spec are errors). Quantities as the API server parses
# them: a string in Kubernetes' quantity grammar, or a JSON number.
RESOURCE_QUOTA_SCHEMA = {
    "type": "object",
    "required": ["apiVersion", "kind"],
    "additionalProperties": False,
    "properties": {
        "apiVersion": {"const": "v1"},
        "kind": {"const": "ResourceQuota"},
        "metadata": {"type": "object"},
        "spec": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "hard": {
                    "type": "object",
                    # `pattern` only applies to strings.
                    "additionalProperties": {"type": ["string", "number"],
                                             "pattern": QUANTITY_PATTERN},
                },
                "scopes": {"type": "array", "items": {"type": "string"}},
                "scopeSelector": {"type": "object"},
            },
        },
        "status": {"type": "object"},
    },
}
DEFAULT_SCHEMA_DIR = os.path.normpath(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "test", "testdata",
                 "schemas"))


DEFAULT_CRD_DIR = os.path.normpath(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "crds"))


def strict_crd_schema(node):
    """An openAPIV3Schema as a draft-7 JSON schema that rejects unknown fields."""
    if isinstance(node, list):
        return [strict_crd_schema(n) for n in node]
    if not isinstance(node, dict):
        return node
    out = {k: strict_crd_schema(v) for k, v in node.items()
           if not k.startswith("x-kubernetes-") and k not in ("default", "nullable", "format")}
    if node.get("x-kubernetes-int-or-string"):
        out.pop("type", None)
        out["anyOf"] = [{"type": "integer"}, {"type": "string"}]
    if ("properties" in node and "additionalProperties" not in node
            and not node.get("x-kubernetes-preserve-unknown-fields")):
        out["additionalProperties"] = False
    return out


def load_crds(crd_dir):
    """(group, version, kind) -> validator for every CRD under crd_dir."""
    validators = {}
    if not os.path.isdir(crd_dir):
        return validators
    for path in input_files([crd_dir]):
        for _, crd in read_objects(path):
            if not isinstance(crd, dict) or crd.get("kind") != "CustomResourceDefinition":
                continue
            spec = crd.get("spec", {})
            for version in spec.get("versions", []):
                schema = version.get("schema", {}).get("openAPIV3Schema")
                if schema is None:
                    continue
                schema = strict_crd_schema(schema)
                # metadata is the server's; the CRD describes it as a bare object.
                schema.setdefault("properties", {})["metadata"] = {"type": "object"}
                key = (spec.get("group"), version.get("name"), spec.get("names", {}).get("kind"))
                validators[key] = jsonschema.Draft7Validator(schema)
    return validators


class SchemaMissing(Exception):
    pass


def strict_openapi_schema(node):
    """An OpenAPI v3 schema object as a draft-7 JSON schema that rejects unknown fields: object
    schemas with `properties` and no `additionalProperties` get `additionalProperties: false`.
    Walks the schema structure (properties, items, additionalProperties, allOf/anyOf/oneOf), so a
    property that happens to be called "default" or "format" is kept."""
    if not isinstance(node, dict):
        return node
    out = {}
    for key, value in node.items():
        if key.startswith("x-kubernetes-") or key in ("default", "format", "description"):
            continue
        if key == "properties":
            out[key] = {name: strict_openapi_schema(prop) for name, prop in value.items()}
        elif key in ("items", "additionalProperties", "not"):
            out[key] = strict_openapi_schema(value)
        elif key in ("allOf", "anyOf", "oneOf"):
            out[key] = [strict_openapi_schema(v) for v in value]
        else:
            out[key] = value
    if "properties" in node and "additionalProperties" not in node:
        out["additionalProperties"] = False
    return out


def drop_nulls(value):
    """The value with null object members removed (Go's JSON decoding treats them as absent)."""
    if isinstance(value, dict):
        return {k: drop_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [drop_nulls(v) for v in value]
    return value


class KubeYamlLoader(yaml.SafeLoader):
    """SafeLoader without the timestamp resolver: Kubernetes keeps `2025-01-01T00:00:00Z` a
    string."""


KubeYamlLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def parse_kube_version(text):
    m = re.fullmatch(r"v?1\.(\d+)(?:\.(\d+))?", text)
    if not m:
        raise argparse.ArgumentTypeError(
            "invalid Kubernetes version %r (expected 1.MINOR or 1.MINOR.PATCH)" % text)
    minor = int(m.group(1))
    if minor < OLDEST_MINOR:
        raise argparse.ArgumentTypeError(
            "Kubernetes %s has no schemas here (oldest: 1.%d)" % (text, OLDEST_MINOR))
    return minor


def input_files(paths):
    for path in paths:
        if os.path.isdir(path):
            found = []
            for root, _, names in os.walk(path):
                found.extend(os.path.join(root, n) for n in names
                             if n.endswith((".yaml", ".yml", ".json")))
            yield from sorted(found)
        else:
            yield path


def read_objects(path):
    """Yields (location, object) for every object in the file, lists flattened."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if path.endswith(".json"):
        docs = [json.loads(text)]
    else:
        docs = list(yaml.load_all(text, Loader=KubeYamlLoader))
    for doc_index, doc in enumerate(docs):
        if doc is None:
            continue
        where = "%s (document %d)" % (path, doc_index + 1)
        items = None
        if isinstance(doc, list):
            items = doc
        elif (isinstance(doc, dict) and isinstance(doc.get("kind"), str)
              and doc["kind"].endswith("List") and isinstance(doc.get("items"), list)):
            items = doc["items"]
        if items is None:
            yield where, doc
        else:
            for i, item in enumerate(items):
                yield "%s items[%d]" % (where, i), item


def describe(obj):
    kind = obj.get("kind") if isinstance(obj.get("kind"), str) else "<no kind>"
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    name = meta.get("name") if isinstance(meta.get("name"), str) else ""
    namespace = meta.get("namespace") if isinstance(meta.get("namespace"), str) else ""
    if not name:
        return "%s <unnamed>" % kind
    return '%s "%s"' % (kind, "%s/%s" % (namespace, name) if namespace else name)


def json_path(parts):
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += "[%d]" % part
        elif re.fullmatch(r"[A-Za-z0-9_-]+", part):
            out += ("." if out else "") + part
        else:
            out += "[%s]" % part
    return out or "(root)"


class Validator:
    def __init__(self, schema_dir, minor, crds=None):
        self.crds = crds or {}
        self.schema_dir = schema_dir
        self.minor = minor
        self.schema_minor = min(minor, NEWEST_SCHEMA_MINOR)
        self.cache = {}
        self.resource_quota = jsonschema.Draft7Validator(RESOURCE_QUOTA_SCHEMA)

    def v3_schema(self, kind, version):
        """The validator for `kind` of resource.k8s.io/`version` from the OpenAPI v3 document."""
        key = (V3_DOCUMENT, kind)
        if key not in self.cache:
            path = os.path.join(self.schema_dir, V3_DOCUMENT)
            if not os.path.isfile(path):
                raise SchemaMissing("schema %s not found in %s" % (V3_DOCUMENT, self.schema_dir))
            with open(path, encoding="utf-8") as f:
                document = json.load(f)
            schemas = document.get("components", {}).get("schemas", {})
            name = "io.k8s.api.resource.%s.%s" % (version, kind)
            if name not in schemas:
                raise SchemaMissing("%s has no schema %s" % (V3_DOCUMENT, name))
            root = {
                "allOf": [
                    {"$ref": "#/components/schemas/" + name},
                    {"properties": {"apiVersion": {"const": "%s/%s" % (GROUP, version)},
                                    "kind": {"const": kind}},
                     "required": ["apiVersion", "kind"]},
                ],
                "components": {"schemas": {n: strict_openapi_schema(v)
                                           for n, v in schemas.items()}},
            }
            self.cache[key] = jsonschema.Draft7Validator(root)
        return self.cache[key]

    def schema(self, kind, version):
        name = "%s-resource-%s.k8s-1.%d.standalone-strict.json" % (kind.lower(), version,
                                                                     self.schema_minor)
        if name not in self.cache:
            path = os.path.join(self.schema_dir, name)
            if not os.path.isfile(path):
                raise SchemaMissing("schema %s not found in %s" % (name, self.schema_dir))
            with open(path, encoding="utf-8") as f:
                schema = json.load(f)
            # The files say "$schema": "http://json-schema.org/schema#" (any draft); their
            # keywords mean the same in draft 7.
            self.cache[name] = jsonschema.Draft7Validator(schema)
        return self.cache[name]

    def check(self, obj):
        """Returns None when skipped, else a list of (path, message) problems."""
        api_version = obj.get("apiVersion")
        kind = obj.get("kind")
        if api_version == "v1" and kind == "ResourceQuota":
            return problems(self.resource_quota, drop_nulls(obj))
        if isinstance(api_version, str) and "/" in api_version:
            crd = self.crds.get((*api_version.split("/", 1), kind))
            if crd is not None:
                errors = sorted(crd.iter_errors(obj), key=lambda e: list(map(str, e.absolute_path)))
                return [(json_path(e.absolute_path), e.message) for e in errors]
        if not isinstance(api_version, str) or not api_version.startswith(GROUP + "/"):
            return None
        if kind not in KINDS:
            return None
        version = api_version[len(GROUP) + 1:]
        introduced = INTRODUCED.get(version)
        if introduced is not None and self.minor < introduced:
            return [("apiVersion", "%s does not exist in Kubernetes 1.%d (introduced in 1.%d)"
                     % (api_version, self.minor, introduced))]
        if version == "v1" and self.minor >= V3_MINOR:
            return problems(self.v3_schema(kind, version), drop_nulls(obj))
        return problems(self.schema(kind, version), obj)


def problems(validator, obj):
    """(path, message) for every error, deepest first within a failed anyOf/oneOf/allOf."""
    out = []
    for error in sorted(validator.iter_errors(obj), key=lambda e: list(map(str, e.absolute_path))):
        # allOf/$ref branches report their own errors directly; anyOf/oneOf hide them in context.
        if error.context:
            error = jsonschema.exceptions.best_match(error.context) or error
        out.append((json_path(error.absolute_path), error.message))
    return out


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kube-version", required=True, type=parse_kube_version,
                        help="Kubernetes release the objects are for (1.32 ...; on 1.35+ v1 objects use "
                             "the 1.35 OpenAPI v3 document, v1beta1/v1beta2 the 1.34 schemas)")
    parser.add_argument("--schema-dir", default=DEFAULT_SCHEMA_DIR,
                        help="directory with the *.standalone-strict.json schemas and the v3 document")
    parser.add_argument("--crd-dir", default=DEFAULT_CRD_DIR,
                        help="directory with CustomResourceDefinitions for custom resources")
    parser.add_argument("files", nargs="+", metavar="FILE")
    args = parser.parse_args(argv)

    validator = Validator(args.schema_dir, args.kube_version, load_crds(args.crd_dir))
    validated = skipped = 0
    problems = []
    for path in input_files(args.files):
        try:
            objects = list(read_objects(path))
        except (OSError, ValueError, yaml.YAMLError) as e:
            problems.append("%s: cannot read: %s" % (path, e))
            continue
        for where, obj in objects:
            if not isinstance(obj, dict):
                problems.append("%s: not an object" % where)
                continue
            try:
                result = validator.check(obj)
            except SchemaMissing as e:
                sys.stderr.write("%s: %s: %s\n" % (where, describe(obj), e))
                return 2
            if result is None:
                skipped += 1
                continue
            validated += 1
            for path_text, message in result:
                problems.append("%s: %s: %s: %s" % (where, describe(obj), path_text, message))
    if problems:
        for line in problems:
            sys.stderr.write(line + "\n")
        sys.stderr.write("%d problem(s); validated %d objects, skipped %d\n"
                         % (len(problems), validated, skipped))
        return 1
    print("validated %d objects, skipped %d" % (validated, skipped))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
