/**
 * Providers by name, for the CLI and configuration files:
 * - `use-lite` (default): Universal Sentence Encoder lite, offline;
 * - `onnx:<folder>`: a local sentence-transformers ONNX export (e.g. all-MiniLM-L6-v2), through the optional
 *   `@huggingface/transformers` (an optional peer dependency);
 * - `http:<model>`: an OpenAI-compatible endpoint; base URL, key and dimensions from `HttpSpecOptions`.
 */
import { ToolsearchError } from "../errors.js";
import { HttpEmbeddingProvider } from "./http.js";
import { OnnxEmbeddingProvider } from "./onnx.js";
import type { EmbeddingProvider } from "./provider.js";
import { UseLiteProvider } from "./use-lite.js";

/** Settings for `http:<model>` that do not fit in the name. */
export interface HttpSpecOptions {
  /** Default `https://api.openai.com/v1`. */
  baseUrl?: string;
  apiKey?: string;
  /** Vector length (default 1536, OpenAI's text-embedding-3-small). */
  dimensions?: number;
}

export const EMBEDDER_NAMES = "use-lite, onnx:<model folder>, http:<model>";

/** The provider a spec names; an unknown spec throws `invalid_option`. */
export async function providerFromSpec(spec: string, http: HttpSpecOptions = {}): Promise<EmbeddingProvider> {
  if (spec === "use-lite") return new UseLiteProvider();
  if (spec.startsWith("onnx:") && spec.length > 5) return OnnxEmbeddingProvider.load(spec.slice(5));
  if (spec.startsWith("http:") && spec.length > 5 && !spec.startsWith("http://")) {
    return new HttpEmbeddingProvider({
      baseUrl: http.baseUrl ?? "https://api.openai.com/v1",
      model: spec.slice(5),
      apiKey: http.apiKey,
      dimensions: http.dimensions ?? 1536,
    });
  }
  throw new ToolsearchError("invalid_option", `Unknown embedder ${JSON.stringify(spec)}: use ${EMBEDDER_NAMES}.`);
}
