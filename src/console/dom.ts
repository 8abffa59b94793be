/**
 * A few lines of DOM building shared by the report and the console: elements with attributes and children, no
 * framework. Text always goes in as text nodes, so names and queries from data can never become markup.
 *
 * @example
 * h("a", { href: "#/tools/x", class: "name" }, "get_weather");
 */
export type Child = Node | string | number | null | undefined | false | Child[];
type Attrs = Record<string, string | number | boolean | undefined | null | EventListener>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (typeof value === "function") el.addEventListener(key.replace(/^on/, ""), value);
    else if (value === true) el.setAttribute(key, "");
    else el.setAttribute(key, String(value));
  }
  append(el, children);
  return el;
}

function append(el: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
  }
}

/** Replaces an element's content. */
export function fill(el: Element, ...children: Child[]): void {
  el.replaceChildren();
  append(el, children);
}

/** A number with a fixed count of decimals, as text. */
export const fixed = (x: number, digits = 3): string => (Number.isFinite(x) ? x.toFixed(digits) : "–");

/** A 0–1 fraction as a percentage. */
export const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;
