// Which addresses are precompiles, for frames parsed from upstream traces (which do not say):
// 0x01–0x11 (Frontier to Prague: ecrecover … BLS12-381) and 0x100 (Osaka's P256VERIFY).
/** True for a precompile's address on a chain up to Osaka. */
export function isPrecompileAddress(address: Uint8Array): boolean {
  for (let i = 0; i < 18; i++) if (address[i] !== 0) return false;
  const low = (address[18]! << 8) | address[19]!;
  return (low >= 0x01 && low <= 0x11) || low === 0x100;
}
