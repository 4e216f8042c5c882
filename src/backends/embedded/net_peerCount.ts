// net_peerCount: always 0; the embedded chain has no peers.
import type { web3Schema } from '../../rpc/schema/web3.js';
import type { MethodHandler } from './methodTable.js';

export function net_peerCount(): MethodHandler<(typeof web3Schema)['net_peerCount']> {
  return () => '0x0';
}
