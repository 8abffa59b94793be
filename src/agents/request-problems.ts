/** Refusing a request before it is sent: every broken rule listed in one `request_invalid` error. */
import { ToolsearchError } from "../errors.js";

/** Throws `request_invalid` listing every problem; does nothing when there is none. */
export function throwIfProblems(problems: string[]): void {
  if (!problems.length) return;
  throw new ToolsearchError("request_invalid", `Request refused before sending (${problems.length} problem${problems.length === 1 ? "" : "s"}):\n${problems.map((p) => `  - ${p}`).join("\n")}`, {
    details: { problems },
  });
}
