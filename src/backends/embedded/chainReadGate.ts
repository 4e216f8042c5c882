// The gate of the embedded chain's namespaces: eth_sendRawTransaction (automine) is answered once the
// transaction has run and is journaled, while its block is still being sealed and written; every other
// method first waits for the blocks acknowledged so far, so what a client was told was sent is what
// it reads, and no reader sees a block before it is durable.
import type { ChainView } from '../../engine/chain/types.js';
import type { MethodGate } from './methodTable.js';

/** Methods answered without waiting: the sends, which take the chain's own turn. */
const SENDS = new Set(['eth_sendRawTransaction']);

export function chainReadGate(chain: ChainView): MethodGate {
  return { wait: () => chain.settled?.(), exempt: SENDS };
}
