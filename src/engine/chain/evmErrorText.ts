// geth's wording for the halts ethereumjs words differently, for eth_call's and eth_estimateGas's
// errors (the revert reason comes from render/revertReason.ts, the one decoder).

/** geth's wording for an EVM halt reported by ethereumjs (other than revert). */
export function evmErrorToGethText(error: string): string {
  // ethereumjs appends where it happened: 'invalid JUMP at <code hash>/<address>:<pc>'.
  if (error === 'invalid JUMP' || error.startsWith('invalid JUMP at ')) return 'invalid jump destination';
  if (error === 'code store out of gas') return 'contract creation code storage out of gas';
  if (error === 'code size to deposit exceeds maximum code size') return 'max code size exceeded';
  if (error === 'static state change') return 'write protection';
  if (error === 'create collision') return 'contract address collision';
  if (error === 'insufficient balance') return 'insufficient balance for transfer';
  return error;
}
