// Whether eth_call and eth_estimateGas try the synchronous interpreter first (fastCall.ts).
// On unless TRACEHOOK_FAST_EVM is `0`/`false`/`off`; read on every call so a test or an operator
// (through the environment of a restarted process) can turn it off. Requests the core does not
// implement run on ethereumjs either way.

export function fastCallsEnabled(): boolean {
  const value = process.env.TRACEHOOK_FAST_EVM;
  return value === undefined || !/^(0|false|off|no)$/i.test(value.trim());
}
