/** Usage events as both stores keep them in a row (tools as JSON text), and back. */
import type { UsageEvent } from "./types.js";

export interface UsageRow {
  collection: string;
  session: string;
  kind: UsageEvent["kind"];
  query: string | null;
  tools: string;
  outcome: UsageEvent["outcome"] | null;
  at: string | Date;
}

export function toUsage(row: UsageRow): UsageEvent {
  const event: UsageEvent = { collection: row.collection, session: row.session, kind: row.kind, tools: JSON.parse(row.tools), at: row.at instanceof Date ? row.at.toISOString() : row.at };
  if (row.query !== null) event.query = row.query;
  if (row.outcome !== null) event.outcome = row.outcome;
  return event;
}
