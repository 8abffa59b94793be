/** examples/openapi-clinic.ts runs offline: it imports the example spec, searches, and calls a loopback stand-in. */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { it } from "node:test";
import { fileURLToPath } from "node:url";

it("examples/openapi-clinic.ts imports, finds and calls the clinic's operations", () => {
  const file = fileURLToPath(new URL("../../examples/openapi-clinic.ts", import.meta.url));
  const result = spawnSync(process.execPath, ["--import", "tsx", file], { encoding: "utf8" });
  assert.equal(result.status, 0, result.stderr);
  assert.match(result.stdout, /imported 3 tools: clinic__createPatient, clinic__getPatient, clinic__listAppointments/);
  assert.match(result.stdout, /→ clinic__getPatient: Get one patient's record\. \(GET \/patients\/\{patient_id\}\)/);
  assert.match(result.stdout, /clinic__getPatient p1 → ok: \{"status":200,"ok":true/);
  assert.match(result.stdout, /clinic__getPatient p9 → error: clinic__getPatient failed: HTTP 404 Not Found: patient p9 does not exist/);
});
