// Liveness (`/healthz`: the process answers) and readiness (`/readyz`: every network's backends
// and the store answer, and the gateway is not shutting down).

export interface ReadinessCheck {
  name: string;
  check(): boolean | Promise<boolean>;
}

export interface ReadinessReport {
  ready: boolean;
  checks: Record<string, 'ok' | 'failing'>;
}

/** Runs every check with a timeout; a check that throws or times out is failing. */
export async function checkReadiness(checks: readonly ReadinessCheck[], timeoutMs: number): Promise<ReadinessReport> {
  const results = await Promise.all(
    checks.map(async (c) => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), timeoutMs);
      });
      try {
        return await Promise.race([Promise.resolve().then(() => c.check()), timeout]);
      } catch {
        return false;
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  const report: ReadinessReport = { ready: true, checks: {} };
  checks.forEach((c, i) => {
    report.checks[c.name] = results[i] ? 'ok' : 'failing';
    if (!results[i]) report.ready = false;
  });
  return report;
}
