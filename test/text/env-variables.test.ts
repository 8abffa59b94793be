import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { expandVariables, type ExpandOptions } from "../../src/text/env-variables.js";
import { expandEnv } from "../../src/openapi/auth.js";
import { resolveServerConfig } from "../../src/mcp/variables.js";

/** Expands with missing variables recorded (and replaced by "") and used values collected. */
function expand(text: string, environment: Record<string, string | undefined>, options: Partial<ExpandOptions> = {}) {
  const missing: string[] = [];
  const values: string[] = [];
  const out = expandVariables(text, environment, {
    onMissing: (name) => (missing.push(name), ""),
    onValue: (value) => values.push(value),
    ...options,
  });
  return { out, missing, values };
}

describe("expandVariables", () => {
  it("fills several variables in one string and reports each value it used", () => {
    const { out, missing, values } = expand("https://${HOST}:${PORT}/${HOST}", { HOST: "api.test", PORT: "8443" });
    assert.equal(out, "https://api.test:8443/api.test");
    assert.deepEqual(missing, []);
    assert.deepEqual(values, ["api.test", "8443", "api.test"]);
  });

  it("uses the default when the variable is unset or empty, and the value when set", () => {
    assert.equal(expand("${A:-fallback}", {}).out, "fallback");
    assert.equal(expand("${A:-fallback}", { A: "" }).out, "fallback");
    assert.equal(expand("${A:-fallback}", { A: "set" }).out, "set");
    assert.equal(expand("${A:-}", {}).out, "", "an empty default is a default");
    assert.equal(expand("${A:-a b/c=d}", {}).out, "a b/c=d", "a default may hold anything but }");
  });

  it("reports each missing variable by name, in order, and puts the handler's text in its place", () => {
    const { out, missing } = expand("x${ONE}y${TWO:-2}z${THREE}", {});
    assert.equal(out, "xy2z");
    assert.deepEqual(missing, ["ONE", "THREE"]);
    const marked = expandVariables("${GONE}!", {}, { onMissing: (name) => `<${name}>` });
    assert.equal(marked, "<GONE>!");
  });

  it("lets the missing handler throw, stopping the expansion", () => {
    assert.throws(() => expandVariables("${NOPE}", {}, { onMissing: (name) => { throw new Error(`no ${name}`); } }), /no NOPE/);
  });

  it("counts a set but empty variable as set unless emptyIsUnset", () => {
    assert.deepEqual(expand("[${E}]", { E: "" }), { out: "[]", missing: [], values: [""] });
    assert.deepEqual(expand("[${E}]", { E: "" }, { emptyIsUnset: true }), { out: "[]", missing: ["E"], values: [] });
  });

  it("leaves text that is not a reference alone; there is no escape", () => {
    for (const literal of ["$HOME", "${}", "${1ABC}", "${A-B}", "${A:=x}", "${A", "plain"]) {
      assert.deepEqual(expand(literal, { HOME: "/h", A: "a" }), { out: literal, missing: [], values: [] }, literal);
    }
    assert.equal(expand("$${A}", { A: "a" }).out, "$a", "$$ is not an escape");
    assert.equal(expand("\\${A}", { A: "a" }).out, "\\a", "a backslash is not an escape");
  });

  it("does not expand references inside a value it inserted", () => {
    assert.equal(expand("${A}", { A: "${B}", B: "b" }).out, "${B}");
  });
});

describe("the two callers keep their own rules", () => {
  it("expandEnv (OpenAPI auth) treats empty as unset and names the field and variable", () => {
    assert.equal(expandEnv("Bearer ${T}", { T: "tok" }, "auth.bearer"), "Bearer tok");
    assert.throws(() => expandEnv("${T}", { T: "" }, 'openapi "x": auth.bearer'), (error: Error & { code?: string }) => {
      assert.equal(error.code, "config_invalid");
      assert.match(error.message, /openapi "x": auth\.bearer refers to \$\{T\}/);
      return true;
    });
  });

  it("resolveServerConfig (gateway) keeps an empty variable, records missing ones and collects secrets", () => {
    const { config, secrets, missing } = resolveServerConfig(
      { command: "srv", args: ["--x=${EMPTY}", "${GONE}"], env: { KEY: "k-${SECRET}" } },
      { EMPTY: "", SECRET: "s3cret" },
    );
    assert.deepEqual(config, { command: "srv", args: ["--x=", ""], env: { KEY: "k-s3cret" } });
    assert.deepEqual(missing, [{ field: "args[1]", variable: "GONE" }]);
    assert.ok(secrets.includes("s3cret") && secrets.includes("k-s3cret"));
  });
});
