/**
 * compose.yaml and the Kubernetes example of docs/deployment.md cannot be run here (no image registry), so they are
 * checked for what can go wrong silently: every TOOLSEARCH_* variable they set is one toolsearch reads, every
 * ${VAR} compose fills in is in .env.example (which holds no real secret), and the start is health-gated.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import type { Command } from "commander";
import { parse, parseAllDocuments } from "yaml";
import { buildProgram } from "../../src/cli/program.js";
import { envSettingOf } from "../../src/ops/settings.js";

const root = new URL("../../", import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), "utf8");

/** Secrets the code reads from the environment itself (with *_FILE); each must still be read somewhere in src/. */
const DIRECT = ["TOOLSEARCH_HOME", "TOOLSEARCH_SECRET_KEY", "TOOLSEARCH_EMBEDDING_KEY", "TOOLSEARCH_MCP_TOKEN"];

async function knownVariables(): Promise<Set<string>> {
  const names = new Set<string>();
  const visit = (command: Command) => {
    for (const option of command.options) {
      const setting = envSettingOf(option);
      for (const name of setting?.names ?? []) names.add(name).add(setting!.secret ? `${name}_FILE` : name);
    }
    command.commands.forEach(visit);
  };
  visit(await buildProgram());
  for (const name of DIRECT) names.add(name).add(`${name}_FILE`);
  return names;
}

test("the variables the test takes as read directly are read in src/", () => {
  const sources = ["src/store/open.ts", "src/auth/secrets.ts", "src/cli/commands/serve.ts", "src/cli/commands/mcp.ts"].map(read).join("\n");
  for (const name of DIRECT) assert.ok(sources.includes(`"${name}"`) || sources.includes(`.${name}`), name);
});

test("compose.yaml: two toolsearch replicas on postgres, health-gated, every variable a real setting, secrets from .env", async () => {
  const text = read("compose.yaml");
  const compose = parse(text, { merge: true }) as { services: Record<string, Record<string, any>> };
  const known = await knownVariables();
  const replicas = Object.entries(compose.services).filter(([, service]) => service.build === ".");
  assert.equal(replicas.length, 2, "two replicas built from the Containerfile");
  assert.match(compose.services.postgres.image, /^postgres:\d+/);
  assert.ok(compose.services.postgres.healthcheck?.test, "postgres has a healthcheck to gate on");
  for (const [name, service] of replicas) {
    assert.equal(service.depends_on?.postgres?.condition, "service_healthy", `${name} waits for a healthy postgres`);
    assert.equal(service.read_only, true, `${name} runs with a read-only root`);
    for (const variable of Object.keys(service.environment)) {
      if (variable.startsWith("TOOLSEARCH_")) assert.ok(known.has(variable), `${name} sets ${variable}, which toolsearch does not read`);
    }
    assert.match(service.environment.TOOLSEARCH_STORE, /^postgres:\/\/toolsearch:\$\{POSTGRES_PASSWORD/);
  }
  const example: Record<string, string> = Object.fromEntries(read(".env.example").split("\n").filter((line) => /^[A-Z_]+=/.test(line)).map((line) => line.split("=", 2)));
  for (const [, variable] of text.matchAll(/\$\{([A-Z_]+)[:?}-]/g)) assert.ok(variable in example, `.env.example lacks ${variable}`);
  for (const [variable, value] of Object.entries(example)) {
    if (/PASSWORD|SECRET|KEY|TOKEN/.test(variable)) assert.match(value, /^change-me/, `.env.example holds a real-looking ${variable}`);
  }
  assert.match(read(".gitignore"), /^\.env$/m, ".env is never committed");
});

test("docs/deployment.md's Kubernetes example: probes, a grace period, a Service, secrets from files, real variables", async () => {
  const page = read("docs/deployment.md");
  const blocks = [...page.matchAll(/```yaml\n([\s\S]*?)```/g)].map(([, body]) => body).filter((body) => body.includes("kind: Deployment"));
  assert.equal(blocks.length, 1, "one Kubernetes example");
  const documents = parseAllDocuments(blocks[0]).map((document) => document.toJS() as Record<string, any>);
  const deployment = documents.find((document) => document.kind === "Deployment")!;
  assert.ok(documents.some((document) => document.kind === "Service"), "a Service");
  const pod = deployment.spec.template.spec;
  const container = pod.containers[0];
  assert.equal(container.readinessProbe.httpGet.path, "/readyz");
  assert.equal(container.livenessProbe.httpGet.path, "/healthz");
  const known = await knownVariables();
  const env: { name: string; value?: string }[] = container.env;
  for (const { name } of env) if (name.startsWith("TOOLSEARCH_")) assert.ok(known.has(name), `the example sets ${name}, which toolsearch does not read`);
  assert.ok(env.some(({ name }) => name === "TOOLSEARCH_STORE_FILE"), "the store URL comes from a mounted secret file");
  const drain = Number(env.find(({ name }) => name === "TOOLSEARCH_DRAIN_SECONDS")?.value ?? 5);
  const timeout = Number(env.find(({ name }) => name === "TOOLSEARCH_SHUTDOWN_TIMEOUT")?.value ?? 30);
  assert.ok(pod.terminationGracePeriodSeconds > drain + timeout, "the grace period outlasts the drain and the shutdown");
  assert.equal(pod.securityContext.runAsNonRoot, true);
  assert.equal(container.securityContext.readOnlyRootFilesystem, true);
});
