#!/usr/bin/env node
// Entry point of the `tracehook` command; the code lives in dist/ (built by `npm ci` via `prepare`).
import { runCli } from '../dist/cli/runCli.js';

runCli(process.argv).catch((error) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
