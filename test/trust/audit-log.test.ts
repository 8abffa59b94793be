/**
 * The audit log's queue while the store is away: entries recorded in the background are retried, in order, and a
 * failed write never rejects where nobody listens (an unhandled rejection ends a `serve` process).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { AuditEntry } from "../../src/store/types.js";
import { AuditLog } from "../../src/trust/audit.js";

test("background writes that fail are retried in order and never reject unhandled", async () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on("unhandledRejection", onUnhandled);
  try {
    let failures = 2;
    const written: AuditEntry[] = [];
    const store = {
      appendAudit: async (entries: AuditEntry[]) => {
        if (failures-- > 0) throw new Error("connect ECONNREFUSED");
        written.push(...entries);
      },
    };
    const lines: string[] = [];
    const log = new AuditLog(store, { flushMs: 5, maxBatch: 2, log: (line) => lines.push(line) });
    // The second record reaches maxBatch: that flush fails at once, in the background.
    for (const target of ["a", "b", "c"]) log.record({ who: "k1", action: "call_tool", collection: "crm", target, outcome: "ok", durationMs: 1 });
    for (let i = 0; i < 300 && written.length < 3; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.deepEqual(written.map((e) => e.target), ["a", "b", "c"], "every entry written once, in order");
    assert.equal(log.pending, 0);
    assert.deepEqual(unhandled, [], "no rejection went unhandled");
    assert.ok(lines.some((line) => /writing failed, entries kept and retried/.test(line)));
    assert.ok(lines.some((line) => /writing again/.test(line)));
  } finally {
    process.off("unhandledRejection", onUnhandled);
  }
});
