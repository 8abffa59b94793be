/**
 * Runs CLI command lines in-process, one at a time as a test asks over IPC, and answers with the exit code and what
 * the command wrote. It is a process of its own because node's test runner reports through the test file's stdout:
 * capturing stdout inside a test file also swallows the runner's reports of other tests, whenever they flush.
 */
import { run } from "../../src/cli/program.js";

interface Request {
  id: number;
  argv: string[];
}

/** One command line, with stdout and stderr captured while it runs. */
async function runCaptured(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = { stdout: "", stderr: "" };
  const writes = { stdout: process.stdout.write, stderr: process.stderr.write };
  process.stdout.write = ((chunk: string | Uint8Array) => ((out.stdout += String(chunk)), true)) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string | Uint8Array) => ((out.stderr += String(chunk)), true)) as typeof process.stderr.write;
  try {
    return { code: await run(argv), ...out };
  } finally {
    process.stdout.write = writes.stdout;
    process.stderr.write = writes.stderr;
  }
}

// Requests come one at a time (each test awaits its answer), so captures never overlap.
process.on("message", (request: Request) => {
  void runCaptured(request.argv).then((result) => process.send!({ id: request.id, ...result }));
});
