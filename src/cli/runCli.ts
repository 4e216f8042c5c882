// The `tracehook` command line (placeholder until the service wiring lands).
export async function runCli(_argv: string[]): Promise<void> {
  throw new Error('not wired yet');
}
