/** Test helpers for the errors a user can cause: the `ToolsearchError` a call throws or a promise rejects with. */
import assert from "node:assert/strict";
import { ToolsearchError } from "../../src/errors.js";

/** The `ToolsearchError` that `fn` throws; fails the test when it throws nothing (other errors pass through). */
export function thrownError(fn: () => unknown): ToolsearchError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ToolsearchError) return error;
    throw error;
  }
  assert.fail("expected a ToolsearchError");
}

/** The `ToolsearchError` that `work` rejects with; fails the test when it resolves. */
export async function rejectedError(work: Promise<unknown> | (() => Promise<unknown>)): Promise<ToolsearchError> {
  try {
    await (typeof work === "function" ? work() : work);
  } catch (error) {
    if (error instanceof ToolsearchError) return error;
    throw error;
  }
  assert.fail("expected a ToolsearchError");
}
