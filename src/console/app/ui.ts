/** Pieces shared by the console's pages: the page context, error boxes, a debounce. */
import { h } from "../dom.js";
import { ApiError, type CollectionSummary } from "./api.js";

/** What every page gets: where to draw, the collection it is about, and the route's parameters. */
export interface PageContext {
  main: HTMLElement;
  collection?: CollectionSummary;
  params: URLSearchParams;
  /** The rest of the route after the page name (e.g. an item's id). */
  rest: string;
  /** Changes the route's query parameters without adding a history entry. */
  setParams(params: Record<string, string>): void;
}

/** A page returns what to undo when the user leaves it (timers, pending requests), or nothing. */
export type Page = (context: PageContext) => (() => void) | undefined;

/** An error as the service words it: code and message. */
export function errorBox(error: unknown): HTMLElement {
  const e = error instanceof ApiError ? error : new ApiError(0, "error", String((error as Error)?.message ?? error));
  return h("div", { class: "error-box", role: "alert" }, h("strong", {}, e.code), ": ", e.message);
}

/** Calls `fn` once input has paused for `ms`. */
export function debounce<A extends unknown[]>(fn: (...args: A) => void, ms: number): ((...args: A) => void) & { cancel(): void } {
  let timer: number | undefined;
  const run = (...args: A) => {
    clearTimeout(timer);
    timer = window.setTimeout(() => fn(...args), ms);
  };
  return Object.assign(run, { cancel: () => clearTimeout(timer) });
}

/** A `<pre>` of pretty JSON. */
export function jsonBlock(value: unknown): HTMLElement {
  return h("pre", { class: "json" }, JSON.stringify(value, null, 2));
}
