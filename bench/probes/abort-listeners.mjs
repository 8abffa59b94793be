/**
 * Loaded into the process under test by bench/soak.ts (`node --import`): counts the abort listeners each AbortSignal
 * holds (added minus removed, as Node's fetch removes its own when a request is collected) and writes, once a second,
 * to the file named by TOOLSEARCH_PROBE_FILE the most any one signal held so far (`most`) and during that second
 * (`recent`), with the process's heap figures (`process.memoryUsage()`) and, when the process runs with
 * --expose-gc, its heap and RSS right after a full collection once a minute (`afterGc`). Nothing else changes.
 */
import { renameSync, writeFileSync } from "node:fs";

const file = process.env.TOOLSEARCH_PROBE_FILE;
if (file) {
  const counts = new WeakMap();
  let most = 0;
  let recent = 0;
  const add = EventTarget.prototype.addEventListener;
  const remove = EventTarget.prototype.removeEventListener;
  EventTarget.prototype.addEventListener = function (type, listener, options) {
    if (type === "abort" && this instanceof AbortSignal && listener) {
      const count = (counts.get(this) ?? 0) + 1;
      counts.set(this, count);
      if (count > most) most = count;
      if (count > recent) recent = count;
    }
    return add.call(this, type, listener, options);
  };
  EventTarget.prototype.removeEventListener = function (type, listener, options) {
    if (type === "abort" && this instanceof AbortSignal && listener && counts.has(this)) counts.set(this, Math.max(0, counts.get(this) - 1));
    return remove.call(this, type, listener, options);
  };
  // Once a minute, with --expose-gc: a full collection first, so that `afterGc` is what is really retained (the
  // figure that shows creep; RSS and heapUsed between collections swing with the collector's rhythm).
  // Every part of process.memoryUsage() is kept so that RSS can be split: V8's heap (heapTotal), memory outside it
  // that V8 knows of (external, arrayBuffers among it), and the rest (native code, malloc's arenas and what they keep).
  let afterGc = { heapUsed: 0, heapTotal: 0, external: 0, arrayBuffers: 0, rss: 0 };
  if (typeof globalThis.gc === "function") {
    setInterval(() => {
      globalThis.gc();
      const { heapUsed, heapTotal, external, arrayBuffers, rss } = process.memoryUsage();
      afterGc = { heapUsed, heapTotal, external, arrayBuffers, rss };
    }, 60_000).unref();
  }
  setInterval(() => {
    const { heapUsed, heapTotal, external } = process.memoryUsage();
    // Written whole, then renamed: the reader never sees half a file.
    writeFileSync(`${file}.tmp`, JSON.stringify({ most, recent, heapUsed, heapTotal, external, afterGc }));
    renameSync(`${file}.tmp`, file);
    recent = 0;
  }, 1000).unref();
}
