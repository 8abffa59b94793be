/**
 * The CLI loads only the command its line names (src/cli/program.ts), which is most of a launch's time saved; help,
 * a missing or a mistyped command still see every command.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { buildProgram, run } from "../../src/cli/program.js";

const ALL = ["search", "describe", "eval", "lint", "context", "docs", "mcp", "import", "serve", "keys", "audit", "usage", "explain"];
const names = async (argv: string[]) => (await buildProgram({ argv })).commands.map((c) => c.name());

describe("command loading", () => {
  it("registers only the command the line names, wherever the program's own flags are", async () => {
    assert.deepEqual(await names(["mcp", "--config", "x.json"]), ["mcp"]);
    assert.deepEqual(await names(["--json", "search", "weather"]), ["search"]);
    assert.deepEqual(await names(["docs", "search", "x"]), ["docs"]);
  });

  it("registers every command, in help order, for help, no command or an unknown one", async () => {
    assert.deepEqual(await names([]), ALL);
    assert.deepEqual(await names(["--help"]), ALL);
    assert.deepEqual(await names(["help", "mcp"]), ALL);
    assert.deepEqual(await names(["serach", "x"]), ALL);
  });

  it("still reports a mistyped command as bad usage (exit 2), with commander's suggestion", async () => {
    const writes: string[] = [];
    const write = process.stderr.write;
    process.stderr.write = ((chunk: string) => (writes.push(String(chunk)), true)) as typeof process.stderr.write;
    try {
      assert.equal(await run(["serach", "weather"]), 2);
    } finally {
      process.stderr.write = write;
    }
    assert.match(writes.join(""), /unknown command 'serach'[\s\S]*Did you mean search\?/);
  });
});
