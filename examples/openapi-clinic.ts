/**
 * A REST API as tools: import an OpenAPI document, search its operations, and call them over HTTP, here against a
 * small stand-in for the clinic's server on loopback (port 0). Run: `npx tsx examples/openapi-clinic.ts`.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { runTool } from "../src/execution/index.js";
import { OpenApiClient, ToolIndex } from "../src/index.js";

const spec = fileURLToPath(new URL("openapi/clinic.yaml", import.meta.url));
const TOKEN = "demo-token";

// The stand-in server: patients by id, and a 404 with a message for unknown ones.
const patients = new Map([["p1", { id: "p1", name: "Ann Lee", birth_date: "1990-02-03" }]]);
const server = createServer((request, response) => {
  const answer = (status: number, body: unknown) => response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
  if (request.headers.authorization !== `Bearer ${TOKEN}`) return answer(401, { message: "a bearer token is required" });
  const id = /^\/api\/v1\/patients\/([^/]+)$/.exec(request.url ?? "")?.[1];
  if (request.method === "GET" && id) return patients.has(id) ? answer(200, patients.get(id)) : answer(404, { message: `patient ${id} does not exist` });
  answer(404, { message: `no route for ${request.method} ${request.url}` });
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;

try {
  const clinic = await OpenApiClient.fromSpec(spec, { prefix: "clinic", baseUrl, auth: { bearer: TOKEN } });
  console.log(`imported ${clinic.tools.length} tools: ${clinic.tools.map((t) => t.name).join(", ")}`);
  const index = await ToolIndex.fromTools(clinic.tools);
  const [hit] = await index.search("look up a patient's record", { limit: 1 });
  console.log(`search "look up a patient's record" → ${hit?.name}: ${hit?.description}`);

  // What an agent loop does with a tool call: validate the input, run the handler, turn failures into error results.
  const handlers = clinic.handlers();
  const found = await runTool({ name: "clinic__getPatient", input: { patient_id: "p1" } }, index, handlers);
  console.log(`clinic__getPatient p1 → ${found.isError ? "error" : "ok"}: ${found.content}`);
  const missing = await runTool({ name: "clinic__getPatient", input: { patient_id: "p9" } }, index, handlers);
  console.log(`clinic__getPatient p9 → ${missing.isError ? "error" : "ok"}: ${missing.content}`);
} finally {
  server.close();
}
