import assert from "node:assert/strict";
import { test } from "node:test";
import { ToolsearchError } from "../../src/errors.js";
import { type Follower, readiness } from "../../src/server/readiness.js";

/** A follower whose store is at `latest`; `sync` applies up to it after `syncMs` (or never when `stuck`). */
function follower(state: { ready?: boolean; applied: number; latest: number | "down" | "hang"; syncMs?: number; stuck?: boolean }): Follower {
  return {
    get ready() {
      return state.ready ?? true;
    },
    get appliedSeq() {
      return state.applied;
    },
    async sync() {
      if (state.stuck) return new Promise<void>(() => {});
      await new Promise((resolve) => setTimeout(resolve, state.syncMs ?? 0));
      if (typeof state.latest === "number") state.applied = state.latest;
    },
    store: {
      async latestSeq() {
        if (state.latest === "down") throw new ToolsearchError("store_unavailable", "connection refused");
        if (state.latest === "hang") return new Promise<number>(() => {});
        return state.latest;
      },
    },
  };
}

test("readiness: not ready while loading", async () => {
  assert.deepEqual(await readiness(follower({ ready: false, applied: 0, latest: 0 })), {
    ready: false,
    code: "not_ready",
    message: "Still loading collections from the store.",
  });
});

test("readiness: ready when caught up, and after catching up within the window", async () => {
  assert.deepEqual(await readiness(follower({ applied: 7, latest: 7 })), { ready: true, seq: 7, store: "ok" });
  assert.deepEqual(await readiness(follower({ applied: 3, latest: 7, syncMs: 10 })), { ready: true, seq: 7, store: "ok" });
});

test("readiness: not ready while behind and unable to catch up in time", async () => {
  const state = await readiness(follower({ applied: 3, latest: 7, stuck: true }), { catchUpMs: 20 });
  assert.equal(state.ready, false);
  assert.match((state as { message: string }).message, /applied change 3 of 7/);
});

test("readiness: a caught-up replica stays ready (serving from memory) while the store is down or hangs", async () => {
  assert.deepEqual(await readiness(follower({ applied: 5, latest: "down" })), { ready: true, seq: 5, store: "unavailable" });
  assert.deepEqual(await readiness(follower({ applied: 5, latest: "hang" }), { storeTimeoutMs: 20 }), { ready: true, seq: 5, store: "unavailable" });
});
