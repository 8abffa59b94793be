/** Shared by the OpenAI tests: a fake API per test, the official client pointed at it, and the enterprise catalog. */
import OpenAI from "openai";
import { ToolIndex } from "../../src/indexes/tool-index.js";
import { ENTERPRISE_CATALOG, fakeApis, type Turn } from "./fake-api.js";

/** Call once per test file; the returned `setup(turns)` gives `{ api, client, catalog }`. */
export function openAiSetup() {
  const start = fakeApis();
  return async (turns: Turn[]) => {
    const api = await start(turns);
    const client = new OpenAI({ apiKey: "test-key", baseURL: `${api.url}/v1`, maxRetries: 0 });
    return { api, client, catalog: await ToolIndex.fromFile(ENTERPRISE_CATALOG) };
  };
}
