#!/usr/bin/env node
/** Entry point of the `toolsearch` binary. */
import { exitQuietlyOnClosedPipe } from "./output.js";
import { run } from "./program.js";

exitQuietlyOnClosedPipe();

process.exitCode = await run(process.argv.slice(2));
