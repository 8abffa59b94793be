/**
 * The tools of a `ToolIndex` by name, in catalog order. A tool loaded from a snapshot stays its JSON text in the
 * snapshot's string list until something asks for it (a search hit, `describe`, the regex or embedding texts), so a
 * loaded collection costs its bytes plus one name per tool, not a tree of objects per tool.
 */
import type { Tool } from "../catalog/tool.js";
import { ENTRY_BYTES } from "../engines/heap-cost.js";
import type { TextList } from "./snapshot.js";

/** A tool as a snapshot keeps it, without its name: a tuple, with the schema only when it is not the definition's own. */
export type StoredTool = [string, Tool["shape"], Tool["definition"], Record<string, unknown>, string | null, Tool["inputSchema"] | null];

export function storedTool(tool: Tool): StoredTool {
  const schema = tool.inputSchema === tool.definition.input_schema ? null : tool.inputSchema;
  return [tool.description, tool.shape, tool.definition, tool.extras, tool.title ?? null, schema];
}

/** The tool a `StoredTool` was made from. */
export function restoredTool(name: string, stored: StoredTool): Tool {
  const [description, shape, definition, extras, title, schema] = stored;
  const tool: Tool = { name, description, inputSchema: schema ?? definition.input_schema, shape, definition, extras };
  if (typeof extras.category === "string") tool.category = extras.category;
  if (title !== null) tool.title = title;
  return tool;
}

export class ToolTable {
  /** A tool, or its place in `saved` while not materialised. */
  private readonly entries = new Map<string, Tool | number>();
  private saved: TextList | undefined;

  /** A table of saved tools: `names[i]`'s JSON (a `StoredTool`) is `saved.get(i)`. */
  static of(names: readonly string[], saved: TextList): ToolTable {
    const table = new ToolTable();
    table.saved = saved;
    names.forEach((name, i) => table.entries.set(name, i));
    return table;
  }

  get size(): number {
    return this.entries.size;
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  get(name: string): Tool | undefined {
    const entry = this.entries.get(name);
    if (typeof entry !== "number") return entry;
    const tool = restoredTool(name, JSON.parse(this.saved!.get(entry)) as StoredTool);
    this.entries.set(name, tool);
    return tool;
  }

  set(name: string, tool: Tool): void {
    this.entries.set(name, tool); // a replaced tool keeps its place
  }

  delete(name: string): boolean {
    return this.entries.delete(name);
  }

  keys(): IterableIterator<string> {
    return this.entries.keys();
  }

  /** Every tool, materialised. */
  *values(): IterableIterator<Tool> {
    for (const name of this.entries.keys()) yield this.get(name)!;
  }

  /** Every tool's `StoredTool` JSON, in order, without materialising the saved ones. */
  storedTexts(): string[] {
    const out: string[] = [];
    for (const [, entry] of this.entries) out.push(typeof entry === "number" ? this.saved!.get(entry) : JSON.stringify(storedTool(entry)));
    return out;
  }

  /**
   * Bytes it holds besides the snapshot it reads saved tools from (its owner counts that): a measured cost per entry,
   * and per materialised tool twice its definition's JSON (objects cost about that much more than their text).
   */
  get bytes(): number {
    let bytes = ENTRY_BYTES * this.entries.size;
    for (const entry of this.entries.values()) if (typeof entry !== "number") bytes += toolBytes(entry);
    return bytes;
  }
}

/** A tool's counted bytes, worked out once per tool object (a build does not pay for it, a budget check does). */
const counted = new WeakMap<Tool, number>();

function toolBytes(tool: Tool): number {
  let bytes = counted.get(tool);
  if (bytes === undefined) counted.set(tool, (bytes = 2 * JSON.stringify(tool.definition).length + 2 * tool.description.length + 256));
  return bytes;
}

