/**
 * Reading one setting from the environment, with the Docker and Kubernetes secrets convention: a secret `NAME` may
 * instead be given as `NAME_FILE`, the path of a file holding it (a mounted secret). Used by the CLI's options
 * (src/ops/settings.ts) and by the code that reads a secret variable itself (`TOOLSEARCH_SECRET_KEY`, …).
 */
import { readFileSync } from "node:fs";
import { ToolsearchError } from "../errors.js";

/**
 * The first of `names` set in the environment (an empty value counts as unset), or with `secret` its `<NAME>_FILE`
 * form: the named file's content without its trailing newline. Setting both forms of one name is refused, as is a
 * file that cannot be read; the error names the variable and the file, never what the file holds.
 */
export function readSetting(names: string[], options: { secret?: boolean; env?: NodeJS.ProcessEnv } = {}): { name: string; value: string } | undefined {
  const env = options.env ?? process.env;
  for (const name of names) {
    const direct = env[name];
    const file = options.secret ? env[`${name}_FILE`] : undefined;
    if (direct && file) throw new ToolsearchError("invalid_option", `both ${name} and ${name}_FILE are set; set one of them`);
    if (direct) return { name, value: direct };
    if (file) return { name: `${name}_FILE`, value: readSecretFile(`${name}_FILE`, file) };
  }
  return undefined;
}

/** A secret the code reads from the environment itself (not through an option): `NAME`, else the file `NAME_FILE` names. */
export function secretFromEnv(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  return readSetting([name], { secret: true, env })?.value;
}

function readSecretFile(variable: string, file: string): string {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const why = (error as NodeJS.ErrnoException).code ?? "unreadable";
    throw new ToolsearchError("invalid_option", `${variable} names ${file}, which cannot be read (${why})`);
  }
  const value = text.replace(/\r?\n$/, "");
  if (!value) throw new ToolsearchError("invalid_option", `${variable} names ${file}, which is empty`);
  return value;
}
