/** One task at a time, in order; a failure is reported and the queue goes on. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { SerialQueue } from "../../../src/server/collections/serial-queue.js";
import { unexpected } from "./helpers.js";

const tick = () => new Promise((resolve) => setImmediate(resolve));

test("tasks run one at a time in the order queued, however long each takes", async () => {
  const queue = new SerialQueue();
  const events: string[] = [];
  const task = (name: string, waits: number) => async () => {
    events.push(`${name} start`);
    for (let i = 0; i < waits; i++) await tick();
    events.push(`${name} end`);
    return name;
  };
  const answers = await Promise.all([queue.run(task("a", 3), unexpected), queue.run(task("b", 0), unexpected), queue.run(task("c", 1), unexpected)]);
  assert.deepEqual(answers, ["a", "b", "c"]);
  assert.deepEqual(events, ["a start", "a end", "b start", "b end", "c start", "c end"]);
});

test("a failed task rejects its own caller, is reported once, and the next task still runs", async () => {
  const queue = new SerialQueue();
  const reported: unknown[] = [];
  const failing = queue.run(async () => {
    throw new Error("store unreachable");
  }, (error) => reported.push(error));
  const next = queue.run(async () => "after", unexpected);
  await assert.rejects(failing, /store unreachable/);
  assert.equal(await next, "after");
  assert.equal(reported.length, 1);
});

test("settle never rejects: it resolves once the failure has been reported", async () => {
  const queue = new SerialQueue();
  const reported: string[] = [];
  await queue.settle(async () => {
    throw new Error("boom");
  }, (error) => reported.push((error as Error).message));
  assert.deepEqual(reported, ["boom"]);
});

test("idle settles after every task queued so far", async () => {
  const queue = new SerialQueue();
  let done = 0;
  for (let i = 0; i < 3; i++) void queue.settle(async () => {
    await tick();
    done++;
  }, unexpected);
  await queue.idle();
  assert.equal(done, 3);
});
