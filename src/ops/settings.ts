/**
 * Settings from the environment (SPEC §18), for the way containers are configured: every `serve` option has a
 * `TOOLSEARCH_<FLAG>` form and every `--store` reads `TOOLSEARCH_STORE`, in every command that has one. A flag on the
 * command line wins over the environment. A secret-bearing setting (the store URL, which may hold a password, and
 * any option naming a key, secret, password or token) also reads `<NAME>_FILE`, the Docker and Kubernetes secrets
 * convention: the value is the file's content, its trailing newline trimmed.
 *
 * The names are attached by walking the options of the registered commands, so an option added to `serve` later gets
 * its environment form without an edit here. Values go through the option's own parser, so `TOOLSEARCH_PORT=x` is
 * refused as `--port x` is, naming the variable.
 */
import type { Command, Option } from "commander";
import { ToolsearchError } from "../errors.js";
import { UsageError } from "../cli/output.js";
import { readSetting } from "./environment.js";

export const ENV_PREFIX = "TOOLSEARCH_";

/** Commands every option of which has an environment form; in the others only `--store` has one. */
const EVERY_OPTION = new Set(["serve"]);

/** Long flags that every command reads from the environment when it has them. */
const EVERYWHERE = new Set(["--store"]);

/** Further names a flag reads, after its own `TOOLSEARCH_` one: platforms that run containers set `PORT`. */
const ALIASES: Record<string, string[]> = { "--port": ["PORT"] };

/** Words in a flag that mark its value as a secret (also read from `<NAME>_FILE`). */
const SECRET_WORDS = /(^|-)(store|key|secret|password|token|credentials?)(-|$)/;

/** Values of a boolean variable that turn its flag on, and those that leave it off. */
const TRUE = new Set(["1", "true", "yes", "on"]);
const FALSE = new Set(["0", "false", "no", "off"]);

/** The environment names an option reads, first to last, and whether `<NAME>_FILE` is read too. */
export interface EnvSetting {
  names: string[];
  secret: boolean;
}

const settings = new WeakMap<Option, EnvSetting>();

/** `--pg-pool-size` → `TOOLSEARCH_PG_POOL_SIZE`; `--no-auth` → `TOOLSEARCH_NO_AUTH`. */
export function envName(option: Option): string | undefined {
  return option.long ? ENV_PREFIX + option.long.replace(/^--/, "").replace(/-/g, "_").toUpperCase() : undefined;
}

/** Whether an option's value may be a secret: the store (its URL may carry a password), keys, tokens, passwords. */
export function isSecretOption(option: Option): boolean {
  return SECRET_WORDS.test(option.long?.replace(/^--/, "") ?? "");
}

/** The environment setting of an option, when it has one. */
export function envSettingOf(option: Option): EnvSetting | undefined {
  return settings.get(option);
}

/**
 * Gives environment forms to the options of `program`'s commands (and their subcommands): every option of the
 * commands in EVERY_OPTION, `--store` everywhere. Call once the commands are registered. An option that already
 * names its variable (`new Option(…).env(NAME)`) keeps that name.
 */
export function attachEnvironment(program: Command): void {
  const visit = (command: Command, path: string[]) => {
    const every = EVERY_OPTION.has(path.join(" "));
    for (const option of command.options) {
      if (!option.long || (!every && !EVERYWHERE.has(option.long) && !option.envVar)) continue;
      const primary = option.envVar ?? envName(option)!;
      option.envVar = primary; // commander's help shows "(env: NAME)"; the values are read by applyEnvironment
      settings.set(option, { names: [primary, ...(ALIASES[option.long] ?? [])], secret: isSecretOption(option) });
    }
    for (const sub of command.commands) visit(sub, [...path, sub.name()]);
  };
  for (const command of program.commands) visit(command, [command.name()]);
}

/**
 * Sets the options of `command` that were not given on its command line from the environment. Run it before the
 * command's action (a preAction hook). A bad value is a usage error naming the variable.
 */
export function applyEnvironment(command: Command, env: NodeJS.ProcessEnv = process.env): void {
  for (const option of command.options) {
    const setting = settings.get(option);
    if (!setting) continue;
    const key = option.attributeName();
    if (command.getOptionValueSource(key) === "cli") continue;
    let found: { name: string; value: string } | undefined;
    try {
      found = readSetting(setting.names, { secret: setting.secret, env });
    } catch (error) {
      throw error instanceof ToolsearchError ? new UsageError(error.message) : error;
    }
    if (!found) continue;
    const value = parseValue(option, found);
    if (value !== undefined) command.setOptionValueWithSource(key, value, "env");
  }
}

/** An environment value as its option's parser reads it; undefined leaves the option as it was (a boolean set off). */
function parseValue(option: Option, { name, value }: { name: string; value: string }): unknown {
  try {
    // A flag without a value (commander's isBoolean() leaves out the negated --no-* ones, which are flags too).
    if (!option.required && !option.optional) {
      const word = value.trim().toLowerCase();
      if (FALSE.has(word)) return undefined;
      if (!TRUE.has(word)) throw new UsageError(`takes true or false (1/0, yes/no, on/off); got ${JSON.stringify(value)}`);
      return !option.negate;
    }
    // A repeatable option (a list) takes its values comma-separated: TOOLSEARCH_PRELOAD=crm,kb.
    if (option.variadic || Array.isArray(option.defaultValue)) {
      const items = value.split(",").map((item) => item.trim()).filter(Boolean);
      const start = Array.isArray(option.defaultValue) ? [...(option.defaultValue as unknown[])] : [];
      if (!option.parseArg) return [...start, ...items];
      return items.reduce<unknown>((previous, item) => option.parseArg!(item, previous), start);
    }
    return option.parseArg ? option.parseArg(value, option.defaultValue) : value;
  } catch (error) {
    const message = (error as Error).message.replace(/^error: /, "");
    // Never echo a secret's value back: say which variable, not what it held.
    if (isSecretOption(option)) throw new UsageError(`${name}: not a valid value for ${option.long}`);
    // "--port takes a whole number …" reads "TOOLSEARCH_PORT takes a whole number …".
    throw new UsageError(option.long && message.startsWith(option.long) ? name + message.slice(option.long.length) : `${name}: ${message}`);
  }
}
