// Whether eth_call and eth_estimateGas try the synchronous interpreter first (fastCall.ts).
// Off unless TRACEHOOK_FAST_EVM is `1`/`true`/`on`/`yes`: the answers are held equal to
// ethereumjs's by the differential fuzzer, but guardedExecution.test.ts's p99 latency of another
// client while a worker spins in a loop came out worse with it on (docs/performance.md), which is
// not explained yet, and that file's loops are sized for ethereumjs's speed. Read on every call,
// so tests and benches can switch it.

export function fastCallsEnabled(): boolean {
  const value = process.env.TRACEHOOK_FAST_EVM;
  return value !== undefined && /^(1|true|on|yes)$/i.test(value.trim());
}
