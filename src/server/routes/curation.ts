/**
 * Curation and usage of a collection (SPEC §17):
 * - `GET/PUT /v1/collections/{c}/synonyms`, `…/rules` and `…/learning` (the learned signal's switch): read with the
 *   read scope, replaced whole with the write scope; stored, so every replica applies them.
 * - `POST /v1/collections/{c}/events`: a client reports loads and calls (with outcome) of tools it found by search,
 *   so the learned signal can learn which words lead to which tool; the call scope.
 * Only `tools` and `mcp` collections take them.
 */
import type { FastifyInstance } from "fastify";
import { ToolsearchError } from "../../errors.js";
import type { CurationKind, UsageEvent } from "../../store/types.js";
import { checkLearning, checkRules, checkSynonyms } from "../../usage/curation.js";
import type { Collections } from "../collections.js";
import { seesAllTools, toolsFor, visibilityOf } from "../visibility.js";
import { anyObject, bearer, collectionParams, withErrors } from "../schemas.js";

const words = { type: "array", items: { type: "string", minLength: 1, maxLength: 100 }, maxItems: 50 } as const;

const bodies: Record<CurationKind, object> = {
  synonyms: {
    type: "object",
    additionalProperties: false,
    description: "groups: words that mean the same; oneWay: a word to the words it implies",
    properties: {
      groups: { type: "array", maxItems: 1000, items: { ...words, minItems: 2 } },
      oneWay: { type: "object", maxProperties: 1000, additionalProperties: { ...words, minItems: 1 } },
    },
  },
  rules: {
    type: "object",
    required: ["rules"],
    additionalProperties: false,
    properties: {
      rules: {
        type: "array",
        maxItems: 1000,
        items: {
          type: "object",
          required: ["query", "pin"],
          additionalProperties: false,
          properties: {
            query: { type: "string", minLength: 1, maxLength: 100, description: "Whole-query pattern; * matches anything" },
            pin: { type: "array", minItems: 1, maxItems: 10, items: { type: "string", minLength: 1 } },
          },
        },
      },
    },
  },
  learning: { type: "object", required: ["enabled"], additionalProperties: false, properties: { enabled: { type: "boolean" } } },
};

const check: Record<CurationKind, (value: unknown, source: string) => unknown> = { synonyms: checkSynonyms, rules: checkRules, learning: checkLearning };

/** What a collection holds when nothing was stored. */
const EMPTY: Record<CurationKind, unknown> = { synonyms: { groups: [], oneWay: {} }, rules: { rules: [] }, learning: { enabled: true } };

const eventsBody = {
  type: "object",
  required: ["events"],
  additionalProperties: false,
  properties: {
    events: {
      type: "array",
      minItems: 1,
      maxItems: 100,
      items: {
        type: "object",
        required: ["session", "kind", "tool"],
        additionalProperties: false,
        properties: {
          session: { type: "string", minLength: 1, maxLength: 128, description: "The session that searched before (the search's `session`)" },
          kind: { type: "string", enum: ["load", "call"] },
          tool: { type: "string", minLength: 1, maxLength: 256 },
          outcome: { type: "string", enum: ["ok", "error"], description: "calls: how the call ended (default ok)" },
        },
      },
    },
  },
} as const;

interface EventsBody {
  events: { session: string; kind: "load" | "call"; tool: string; outcome?: "ok" | "error" }[];
}

export async function curationRoutes(app: FastifyInstance, { collections }: { collections: Collections }): Promise<void> {
  const toolsCollection = async (name: string) => {
    const collection = await collections.resolve(name);
    if (collection.kind === "docs") throw new ToolsearchError("conflict", `Collection ${JSON.stringify(name)} holds documents; synonyms, rules and usage apply to tool collections.`);
    return collection;
  };

  for (const kind of Object.keys(bodies) as CurationKind[]) {
    app.get<{ Params: { c: string } }>(`/v1/collections/:c/${kind}`, {
      config: { scope: "read" },
      schema: { summary: `The collection's ${kind}`, security: bearer, params: collectionParams, response: withErrors({ 200: anyObject }) },
    }, async (request) => {
      await toolsCollection(request.params.c);
      const value = (await collections.store.getCuration(request.params.c, kind)) ?? EMPTY[kind];
      // A key that sees only some tools is shown only the pins of those: a rule must not name a hidden tool.
      const visible = visibilityOf(request.apiKey);
      if (kind !== "rules" || !visible) return value;
      const rules = (value as { rules: { query: string; pin: string[] }[] }).rules
        .map((rule) => ({ ...rule, pin: rule.pin.filter(visible.accept) }))
        .filter((rule) => rule.pin.length > 0);
      return { rules };
    });

    app.put<{ Params: { c: string }; Body: unknown }>(`/v1/collections/:c/${kind}`, {
      config: { scope: "write" },
      schema: { summary: `Replace the collection's ${kind}`, security: bearer, params: collectionParams, body: bodies[kind], response: withErrors({ 200: anyObject }) },
    }, async (request) => {
      const name = request.params.c;
      await toolsCollection(name);
      if (!seesAllTools(request.apiKey)) {
        throw new ToolsearchError("forbidden", `Replacing the ${kind} of a collection needs a key that sees every tool in it.`);
      }
      const value = check[kind](request.body, `${kind} of collection ${name}`);
      await collections.writes.putCuration(name, kind, value);
      return value;
    });
  }

  app.post<{ Params: { c: string }; Body: EventsBody }>("/v1/collections/:c/events", {
    config: { scope: "call" },
    schema: { summary: "Report loads and calls of tools found by search (usage for the learned signal)", security: bearer, params: collectionParams, body: eventsBody, response: withErrors({ 200: anyObject }) },
  }, async (request) => {
    const name = request.params.c;
    const tools = toolsFor(await toolsCollection(name), request.apiKey);
    const at = new Date().toISOString();
    // Tools the collection does not hold are dropped: nothing is learned about them, and nothing is revealed.
    const events: UsageEvent[] = request.body.events
      .filter((e) => tools.get(e.tool) !== undefined)
      .map((e) => ({ collection: name, session: e.session, kind: e.kind, tools: [e.tool], ...(e.kind === "call" ? { outcome: e.outcome ?? "ok" } : {}), at }));
    await collections.recordUsage(name, events);
    return { recorded: events.length };
  });
}
