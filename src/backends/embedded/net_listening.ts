// net_listening: always true; the embedded chain has no peer-to-peer side.
import type { web3Schema } from '../../rpc/schema/web3.js';
import type { MethodHandler } from './methodTable.js';

export function net_listening(): MethodHandler<(typeof web3Schema)['net_listening']> {
  return () => true;
}
