#!/usr/bin/env node
// File: tools/cel-spec/export-conformance.mjs
// Exports the CEL conformance suites that apply to gpu-profile-operator's CEL engine from
// @bufbuild/cel-spec (a serialized copy of github.com/google/cel-spec's simple tests) into one
// JSON file that test/cel/conformance_test.cc reads.
//
// Usage: node export-conformance.mjs OUT.json
//
// Output shape:
//   { "source": "@bufbuild/cel-spec@<version> (cel-spec <ref>)",
//     "suites": [ { "name": "basic",
//                   "sections": [ { "name": "self_eval_zeroish",
//                                   "tests": [ <SimpleTest in protobuf JSON form> ] } ] } ] }
// Each test is the upstream SimpleTest (name, expr, disableMacros, disableCheck, container,
// typeEnv, bindings, value | evalError | anyEvalErrors | unknown | ...) plus, when the
// serialization carries them, "checkedType" (the type cel-go's checker infers) and
// "checkError" (cel-go's checker error for tests that run unchecked).
import { readFileSync, writeFileSync } from "node:fs";
import { tests } from "@bufbuild/cel-spec/testdata/conformance.js";

// The suites whose features exist in Kubernetes' CEL environment (no protobuf messages, enums,
// wrappers, timestamps arithmetic beyond the standard library, or extensions Kubernetes lacks).
const kSuites = [
  "basic", "bindings_ext", "comparisons", "conversions", "fields", "fp_math", "integer_math",
  "lists", "logic", "macros", "macros2", "namespace", "optionals", "parse", "plumbing", "string",
  "string_ext",
];

function main(argv) {
  if (argv.length !== 1) {
    process.stderr.write("usage: node export-conformance.mjs OUT.json\n");
    return 2;
  }
  // The package's "exports" hide package.json; read it next to this script.
  const pkg = JSON.parse(readFileSync(
    new URL("./node_modules/@bufbuild/cel-spec/package.json", import.meta.url), "utf8"));

  const byName = new Map(tests.suites.map((s) => [s.name, s]));
  const missing = kSuites.filter((name) => !byName.has(name));
  if (missing.length > 0) {
    process.stderr.write(`conformance data lacks suites: ${missing.join(", ")}\n`);
    return 1;
  }

  let count = 0;
  const suites = kSuites.map((name) => ({
    name,
    sections: (byName.get(name).suites ?? []).map((section) => ({
      name: section.name,
      tests: (section.tests ?? []).map((t) => {
        count++;
        const out = { ...t.original };
        if (t.type !== undefined) out.checkedType = t.type;
        if (t.error !== undefined) out.checkError = t.error;
        return out;
      }),
    })),
  }));

  const source = `@bufbuild/cel-spec@${pkg.version} (cel-spec ${pkg.upstreamCelSpecRef ?? "?"})`;
  writeFileSync(argv[0], JSON.stringify({ source, suites }, null, 1) + "\n");
  process.stdout.write(`wrote ${count} tests in ${suites.length} suites to ${argv[0]}\n`);
  return 0;
}

process.exitCode = main(process.argv.slice(2));
