#!/usr/bin/env node
/** Entry point of the `toolsearch` binary. */
import { run } from "./program.js";

process.exitCode = await run(process.argv.slice(2));
