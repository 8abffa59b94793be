/**
 * Stage 4 of a tool search (`pipeline.ts`): curation and use over the ranked candidates, within what the caller may
 * see. `hybrid` lifts the members of strong groups here (`bm25` lifted them in its candidate list, which its model
 * reads); then the learned usage signal is blended in (`bm25`, `hybrid`), pinned rules take the head of the list, and
 * the list is cut to the limit. Pins and the learned signal bring in only tools the caller sees (`SearchEngines.exists`).
 */
import type { Ranked } from "../engines/top-k.js";
import type { SearchEngines } from "./engines.js";
import { withGroups } from "./engine-lists.js";
import type { ToolSearchRequest } from "./request.js";

/** The final ranking of a request: groups (hybrid), learned blend, pins, cut to `request.limit`. */
export function curate(query: string, terms: string[], ranked: Ranked[], request: ToolSearchRequest, engines: Pick<SearchEngines, "usage" | "tool" | "exists">): Ranked[] {
  const lifted = request.engine === "hybrid" ? withGroups(ranked, request.sets.groups, engines) : ranked;
  return engines.usage.rerank(query, terms, lifted, request.limit, request, engines.exists);
}
