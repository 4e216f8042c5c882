// Runs the CLI from source (through tsx) so end-to-end tests need no build step.
import { runCli } from '../cli/runCli.js';

runCli(process.argv).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
