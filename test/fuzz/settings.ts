/**
 * Shared settings of the property-based tests: a fixed seed and a few hundred runs in `npm test`; `npm run fuzz --
 * RUNS SEED` sets both (through TOOLSEARCH_FUZZ_RUNS / TOOLSEARCH_FUZZ_SEED) for long runs. fast-check prints the
 * seed and path of a failure, which replays it exactly.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { ErrorCodes, ToolsearchError } from "../../src/errors.js";

/** Parameters for `fc.assert`: the run count and seed from the environment, or the defaults of `npm test`. */
export function fuzzParameters(defaultRuns = 200): fc.Parameters<unknown> {
  const runs = Number(process.env.TOOLSEARCH_FUZZ_RUNS ?? defaultRuns);
  const seed = Number(process.env.TOOLSEARCH_FUZZ_SEED ?? 17);
  return { numRuns: Number.isInteger(runs) && runs > 0 ? runs : defaultRuns, seed: Number.isInteger(seed) ? seed : 17 };
}

/**
 * Runs `work`: it may return, or throw a `ToolsearchError` whose code is one of `allowed` — anything else (a
 * TypeError, a RangeError, an error without a code) fails the property. Returns the value, or the error.
 */
export function onlyCodedErrors<T>(allowed: (keyof typeof ErrorCodes)[], work: () => T): { value: T } | { error: ToolsearchError } {
  try {
    return { value: work() };
  } catch (error) {
    if (!(error instanceof ToolsearchError)) throw error;
    assert.ok(allowed.includes(error.code), `unexpected code ${error.code}: ${error.message}`);
    assert.ok(error.message.length > 0);
    return { error };
  }
}

/** The async form of `onlyCodedErrors`. */
export async function onlyCodedErrorsAsync<T>(allowed: (keyof typeof ErrorCodes)[], work: () => Promise<T>): Promise<{ value: T } | { error: ToolsearchError }> {
  try {
    return { value: await work() };
  } catch (error) {
    if (!(error instanceof ToolsearchError)) throw error;
    assert.ok(allowed.includes(error.code), `unexpected code ${error.code}: ${error.message}`);
    return { error };
  }
}

/** Any text, including lone surrogates, control characters and every plane. */
export const anyText = (maxLength = 200) => fc.string({ unit: "binary", maxLength });

/** Text mixing words, punctuation and odd characters, closer to what people type. */
export const wordyText = (maxLength = 12) =>
  fc.array(fc.oneof(fc.constantFrom("weather", "Paris", "get_stock", "getStockPrice", "naïve", "ÉTÉ", "東京", "😀", "--", "_", "x".repeat(300), " ", "\u0000", "\u200b"), anyText(8)), { maxLength }).map((parts) => parts.join(" "));

/** Nests `inner` `depth` times under `properties` (without recursion, so that any depth can be built). */
export function nest(inner: unknown, depth: number): Record<string, unknown> {
  let node = inner as Record<string, unknown>;
  for (let i = 0; i < depth; i++) node = { type: "object", properties: { a: node } };
  return node;
}

/** JSON-Schema-like values: real keywords with values of the right or the wrong type, nested, sometimes very deep. */
export const schemaLike: fc.Arbitrary<unknown> = fc.letrec<{ node: unknown }>((tie) => ({
  node: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.jsonValue({ maxDepth: 2 }),
    fc.record(
      {
        type: fc.oneof(fc.constantFrom("object", "string", "integer", "number", "array", "boolean", "null", "intger"), fc.array(fc.constantFrom("string", "null"))),
        properties: fc.dictionary(fc.oneof(fc.constantFrom("__proto__", "constructor", "$ref", "a"), fc.string({ maxLength: 8 })), tie("node"), { maxKeys: 3 }),
        items: fc.oneof(tie("node"), fc.array(tie("node"), { maxLength: 2 }), fc.boolean()),
        required: fc.oneof(fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }), fc.string()),
        enum: fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 3 }),
        minimum: fc.oneof(fc.integer(), fc.string()),
        exclusiveMinimum: fc.oneof(fc.boolean(), fc.integer()),
        $schema: fc.constantFrom("http://json-schema.org/draft-04/schema#", "https://json-schema.org/draft/2020-12/schema", "nonsense"),
        $ref: fc.constantFrom("#", "#/$defs/x", "#/definitions/y", "http://example.invalid/s.json", "#/properties/a"),
        $defs: fc.dictionary(fc.string({ maxLength: 3 }), tie("node"), { maxKeys: 2 }),
        anyOf: fc.array(tie("node"), { maxLength: 3 }),
        pattern: fc.oneof(fc.constantFrom("^[a-z]+$", "(", "\\p{L}", "(?<=a)b"), fc.string({ maxLength: 6 })),
        format: fc.constantFrom("email", "uri", "date-time", "no-such-format"),
        description: anyText(30),
      },
      { requiredKeys: [] },
    ),
  ),
})).node;

/** An object schema around `schemaLike` parts, sometimes nested past the depth limit. */
export const inputSchemaLike: fc.Arbitrary<unknown> = fc.oneof(
  fc.record({ type: fc.constant("object"), properties: fc.dictionary(fc.string({ maxLength: 6 }), schemaLike, { maxKeys: 4 }) }, { requiredKeys: ["type"] }),
  schemaLike,
  fc.integer({ min: 1, max: 400 }).map((depth) => nest({ type: "string" }, depth)),
);
