// A CacheChainView for tests, read from a real node: `refresh()` reads the node's blocks by number
// and reports a reorg from the lowest height whose hash changed, as the network's upstreams do.
// The finalized height is set by the test (anvil has no finality worth the name).
import type { Hex } from '../../../../rpc/hex.js';
import type { Backend } from '../../../backend.js';
import type { CacheChainEvent, CacheChainView } from '../cachingBackend.js';

export interface TestChainView extends CacheChainView {
  setFinalized(number: bigint | undefined): void;
  /** Overrides the canonical hash at a height (undefined: the view no longer tracks it). */
  setCanonical(number: bigint, hash: Hex | undefined): void;
  /** Reads the node's chain up to its head; emits head/reorg events like NetworkUpstreams. */
  refresh(): Promise<void>;
  /** Emits an event as the network's upstreams would (without changing the tracked hashes). */
  emit(event: CacheChainEvent): void;
  /** Events emitted so far. */
  readonly events: CacheChainEvent[];
}

const ctx = { requestId: 'test-chain-view', signal: new AbortController().signal };

export function createTestChainView(node: Backend): TestChainView {
  const listeners = new Set<(event: CacheChainEvent) => void>();
  const hashes = new Map<bigint, Hex>();
  const events: CacheChainEvent[] = [];
  let finalized: bigint | undefined;
  const emit = (event: CacheChainEvent) => {
    events.push(event);
    for (const listener of listeners) listener(event);
  };
  return {
    finalized: () => finalized,
    canonicalHash: (number) => hashes.get(number),
    onChain(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    setFinalized(number) {
      finalized = number;
    },
    setCanonical(number, hash) {
      if (hash === undefined) hashes.delete(number);
      else hashes.set(number, hash);
    },
    events,
    emit,
    async refresh() {
      const head = BigInt((await node.call('eth_blockNumber', [], ctx)) as string);
      let changedFrom: bigint | undefined;
      let headHash: Hex | undefined;
      for (let n = 0n; n <= head; n++) {
        const block = (await node.call('eth_getBlockByNumber', [`0x${n.toString(16)}`, false], ctx)) as { hash: Hex };
        const known = hashes.get(n);
        if (known !== undefined && known !== block.hash && changedFrom === undefined) changedFrom = n;
        hashes.set(n, block.hash);
        headHash = block.hash;
      }
      for (const n of [...hashes.keys()]) {
        if (n <= head) continue;
        hashes.delete(n);
        if (changedFrom === undefined || n < changedFrom) changedFrom = n;
      }
      const tip = { number: head, hash: headHash! };
      if (changedFrom !== undefined) emit({ kind: 'reorg', fromNumber: changedFrom, head: tip });
      else emit({ kind: 'head', ...tip });
    },
  };
}
