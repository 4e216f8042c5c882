// eth_syncing: an embedded chain is never syncing.
import type { ethSchema } from '../../rpc/schema/eth.js';
import type { MethodHandler } from './methodTable.js';

export function eth_syncing(): MethodHandler<(typeof ethSchema)['eth_syncing']> {
  return () => false;
}
