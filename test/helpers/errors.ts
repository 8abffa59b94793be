/** Test helper: the ToolsearchError a call throws (any other outcome fails the test). */
import assert from "node:assert/strict";
import { ToolsearchError } from "../../src/errors.js";

export function refusal(fn: () => unknown): ToolsearchError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ToolsearchError) return error;
    throw error;
  }
  assert.fail("expected a ToolsearchError");
}
