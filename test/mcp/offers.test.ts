/**
 * The gateway's view of upstream resources, templates and prompts (src/mcp/offers.ts): prefixed prompt names, URIs
 * kept unless two servers clash (then a stable prefixed form that routes back), template matching, and the
 * `resources`/`prompts` globs of a server block.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { OfferCatalog, prefixedUri } from "../../src/mcp/offers.js";
import type { UpstreamOffer } from "../../src/mcp/upstream.js";

const offer = (partial: Partial<UpstreamOffer>): UpstreamOffer => ({ resources: [], resourceTemplates: [], prompts: [], ...partial });

describe("OfferCatalog", () => {
  const alpha = offer({
    resources: [{ uri: "file:///shared.txt", name: "shared" }, { uri: "alpha://only", name: "only" }],
    resourceTemplates: [{ uriTemplate: "alpha://items/{id}", name: "item" }],
    prompts: [{ name: "summarize" }, { name: "secret-prompt" }],
  });
  const beta = offer({ resources: [{ uri: "file:///shared.txt", name: "shared too" }, { uri: "beta://admin/keys", name: "keys" }], prompts: [{ name: "summarize" }] });
  const servers = { alpha: { prompts: { deny: ["secret-*"] } }, beta: { resources: { deny: ["beta://admin/*"] } } };
  const catalog = new OfferCatalog(servers, new Map([["alpha", alpha], ["beta", beta]]));

  it("keeps unique URIs, prefixes clashing ones on both servers, and routes each back", () => {
    assert.deepEqual(catalog.resources.map((r) => r.uri), [prefixedUri("alpha", "file:///shared.txt"), "alpha://only", prefixedUri("beta", "file:///shared.txt")]);
    assert.deepEqual(catalog.routeResource("alpha://only"), { server: "alpha", target: "alpha://only" });
    assert.deepEqual(catalog.routeResource("toolsearch://upstream/beta/file:///shared.txt"), { server: "beta", target: "file:///shared.txt" });
    assert.equal(catalog.routeResource("file:///shared.txt"), undefined, "a clashing URI in its plain form is ambiguous");
    assert.equal(catalog.exposedUri("alpha", "alpha://only"), "alpha://only");
  });

  it("routes URIs that match a template to its server", () => {
    assert.deepEqual(catalog.routeResource("alpha://items/42"), { server: "alpha", target: "alpha://items/42" });
    assert.deepEqual(catalog.routeTemplate("alpha://items/{id}"), { server: "alpha", target: "alpha://items/{id}" });
    assert.equal(catalog.routeResource("gamma://nothing"), undefined);
  });

  it("names prompts server__prompt and routes them back", () => {
    assert.deepEqual(catalog.prompts.map((p) => p.name), ["alpha__summarize", "beta__summarize"]);
    assert.deepEqual(catalog.routePrompt("beta__summarize"), { server: "beta", target: "summarize" });
  });

  it("hides what the resources and prompts globs exclude, from lists and from reads", () => {
    assert.equal(catalog.routePrompt("alpha__secret-prompt"), undefined);
    assert.ok(!catalog.resources.some((r) => r.uri.includes("admin")));
    assert.equal(catalog.routeResource("beta://admin/keys"), undefined);
    assert.equal(catalog.routeResource(prefixedUri("beta", "beta://admin/keys")), undefined, "the prefixed form obeys the globs too");
    assert.equal(catalog.routeResource(prefixedUri("nobody", "x://y")), undefined, "an unknown server in a prefixed URI");
  });
});
