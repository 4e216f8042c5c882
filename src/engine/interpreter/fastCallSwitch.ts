// Whether eth_call, eth_estimateGas and traced calls try the synchronous interpreter first
// (fastCall.ts, fastTrace.ts). On unless TRACEHOOK_FAST_EVM is `0`/`false`/`off`/`no`: the answers
// are held equal to ethereumjs's by the differential fuzzer, and whatever the core does not
// implement runs on ethereumjs anyway. Read on every call (the answer kept while the value stays
// the same), so tests and benches can switch it.

let lastValue: string | undefined;
let lastEnabled = true;

export function fastCallsEnabled(): boolean {
  const value = process.env.TRACEHOOK_FAST_EVM;
  if (value !== lastValue) {
    lastValue = value;
    lastEnabled = value === undefined || !/^(0|false|off|no)$/i.test(value.trim());
  }
  return lastEnabled;
}
