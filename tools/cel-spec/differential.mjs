#!/usr/bin/env node
// File: tools/cel-spec/differential.mjs
// Evaluates CEL expressions with @bufbuild/cel, an independent CEL implementation, so that
// test/cel/differential_test.cc can compare the project's engine against it.
//
// Usage: node differential.mjs IN.json OUT.json
//
//   IN.json:  { "expressions": ["device.driver == 'x'", ...],
//               "devices": [ <cel.expr.Value in protobuf JSON form>, ... ] }
//             Each expression is evaluated once per device, with the variable `device` bound to
//             that device (unchecked evaluation, as @bufbuild/cel has no declarations).
//   OUT.json: { "engine": "@bufbuild/cel@<version>",
//               "results": [ [ <result per device> ] per expression ] }
//             where a result is {"value": <cel.expr.Value>}, {"error": "<message>"}, or
//             {"unsupported": "<what>"} for results without a protobuf-JSON form.
import { readFileSync, writeFileSync } from "node:fs";
import {
  celEnv, celUint, isCelError, isCelList, isCelMap, isCelType, isCelUint, parse, plan,
} from "@bufbuild/cel";
import { strings } from "@bufbuild/cel/ext";

// cel.expr.Value (protobuf JSON) -> CelInput.
function toCel(v) {
  if ("nullValue" in v) return null;
  if ("boolValue" in v) return v.boolValue;
  if ("int64Value" in v) return BigInt(v.int64Value);
  if ("uint64Value" in v) return celUint(BigInt(v.uint64Value));
  if ("doubleValue" in v) return Number(v.doubleValue);  // Number("NaN"), Number("Infinity")
  if ("stringValue" in v) return v.stringValue;
  if ("bytesValue" in v) return new Uint8Array(Buffer.from(v.bytesValue, "base64"));
  if ("listValue" in v) return (v.listValue.values ?? []).map(toCel);
  if ("mapValue" in v) {
    return new Map((v.mapValue.entries ?? []).map((e) => [toCel(e.key), toCel(e.value)]));
  }
  throw new Error(`unsupported input value ${JSON.stringify(v)}`);
}

// CelValue -> cel.expr.Value (protobuf JSON); throws for values without that form.
function fromCel(v) {
  if (v === null) return { nullValue: null };
  switch (typeof v) {
    case "boolean": return { boolValue: v };
    case "bigint": return { int64Value: v.toString() };
    case "string": return { stringValue: v };
    case "number":
      if (Number.isNaN(v)) return { doubleValue: "NaN" };
      if (!Number.isFinite(v)) return { doubleValue: v > 0 ? "Infinity" : "-Infinity" };
      return { doubleValue: v };
  }
  if (v instanceof Uint8Array) return { bytesValue: Buffer.from(v).toString("base64") };
  if (isCelUint(v)) return { uint64Value: v.value.toString() };
  if (isCelList(v)) return { listValue: { values: [...v].map(fromCel) } };
  if (isCelMap(v)) {
    return {
      mapValue: {
        entries: [...v.entries()].map(([k, val]) => ({ key: fromCel(k), value: fromCel(val) })),
      },
    };
  }
  if (isCelType(v)) return { typeValue: v.name };
  throw new Error(`result without a protobuf-JSON form: ${String(v)}`);
}

function evaluate(program, device) {
  let result;
  try {
    result = program({ device });
  } catch (e) {
    // The evaluator promises not to throw; report it like an error value if it does.
    return { error: `exception: ${e?.message ?? e}` };
  }
  if (isCelError(result)) return { error: result.message };
  try {
    return { value: fromCel(result) };
  } catch (e) {
    return { unsupported: e.message };
  }
}

function main(argv) {
  if (argv.length !== 2) {
    process.stderr.write("usage: node differential.mjs IN.json OUT.json\n");
    return 2;
  }
  const input = JSON.parse(readFileSync(argv[0], "utf8"));
  const devices = input.devices.map(toCel);
  const env = celEnv({ funcs: strings });
  const results = input.expressions.map((expr) => {
    let program;
    try {
      program = plan(env, parse(expr));
    } catch (e) {
      const error = { error: `parse: ${e?.message ?? e}` };
      return devices.map(() => error);
    }
    return devices.map((device) => evaluate(program, device));
  });
  const pkg = JSON.parse(readFileSync(
    new URL("./node_modules/@bufbuild/cel/package.json", import.meta.url), "utf8"));
  writeFileSync(argv[1], JSON.stringify({ engine: `@bufbuild/cel@${pkg.version}`, results }));
  return 0;
}

process.exitCode = main(process.argv.slice(2));
