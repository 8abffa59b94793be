/**
 * `${NAME}` and `${NAME:-default}` in configuration strings, filled from an environment. One parser for every place a
 * configuration may name an environment variable (gateway server blocks, OpenAPI credentials), so they accept the
 * same spelling. There is no escape: `$${NAME}` is a literal `$` followed by the reference.
 *
 * @example
 * ```ts
 * expandVariables("Bearer ${TOKEN}", { TOKEN: "abc" }, { onMissing: (name) => { throw new Error(name); } }); // "Bearer abc"
 * ```
 */

/** `${NAME}` or `${NAME:-default}`; NAME as shells spell environment variables. */
const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** Values by variable name; `undefined` is unset. */
export type Environment = Record<string, string | undefined>;

/** How `expandVariables` treats empty and missing variables, and who hears about the values it uses. */
export interface ExpandOptions {
  /**
   * Whether a set but empty variable counts as unset even without `:-`. Default false: as in shells, an empty value
   * is the user's explicit choice, and only `:-` falls back on empty.
   */
  emptyIsUnset?: boolean;
  /** Called for a variable that is not set and has no default; returns the text to put in its place (or throws). */
  onMissing: (variable: string) => string;
  /** Called with each value taken from the environment, e.g. to collect secrets to mask. */
  onValue?: (value: string) => void;
}

/**
 * Replaces every `${NAME}` / `${NAME:-default}` in `text`. A default is used when the variable is unset or empty.
 *
 * @example
 * ```ts
 * expandVariables("${HOST:-localhost}:${PORT}", { PORT: "80" }, { onMissing: () => "" }); // "localhost:80"
 * ```
 */
export function expandVariables(text: string, environment: Environment, options: ExpandOptions): string {
  return text.replace(REFERENCE, (_whole, name: string, fallback: string | undefined) => {
    const found = environment[name];
    if (found !== undefined && (found !== "" || (fallback === undefined && !options.emptyIsUnset))) {
      options.onValue?.(found);
      return found;
    }
    if (fallback !== undefined) return fallback;
    return options.onMissing(name);
  });
}
