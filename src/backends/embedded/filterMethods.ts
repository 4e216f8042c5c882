// eth_newFilter, eth_newBlockFilter, eth_newPendingTransactionFilter, eth_getFilterChanges,
// eth_getFilterLogs and eth_uninstallFilter over the chain's FilterRegistry. Filters belong to the
// client key that made them (another key's id is "filter not found"), expire after 5 minutes
// unpolled (geth), and are bounded per key and in total (-32005). A log filter whose fromBlock is a
// past block answers that block's logs on its first poll, as anvil does.
import type { LogCriteria } from '../../engine/chain/filterRegistry.js';
import { ResourceNotFoundError } from '../../rpc/errors.js';
import { bytesToHex, hexToBytes } from '../../rpc/hex.js';
import type { filterSchema } from '../../rpc/schema/filter.js';
import type { BlockId } from '../../rpc/schema/primitives.js';
import type { ChainFilters } from './chainFilters.js';
import type { ChainMethodDeps } from './chainMethodDeps.js';
import { addressTopicsOf } from './logFilterCriteria.js';
import type { HandlersFor, RpcContext } from './methodTable.js';
import { logEntryToRpc } from './rpcLog.js';

/** A block bound of a filter: a number, or undefined for `latest`/`pending`/`safe`/`finalized`. */
function boundOf(id: BlockId | undefined): bigint | undefined {
  if (!id) return undefined;
  if (id.kind === 'number') return id.number;
  if (id.kind === 'tag' && id.tag === 'earliest') return 0n;
  return undefined;
}

const keyOf = (ctx: RpcContext): string => ctx.clientKey ?? '';

export function createFilterHandlers({ chain }: ChainMethodDeps, filters: ChainFilters): HandlersFor<typeof filterSchema> {
  const { registry, feed } = filters;
  return {
    async eth_newFilter([filter], ctx) {
      const { addresses, topics } = addressTopicsOf(filter);
      const criteria: LogCriteria = { fromBlock: boundOf(filter.fromBlock), toBlock: boundOf(filter.toBlock), addresses, topics };
      if (filter.blockHash) {
        // anvil takes a block hash too: the filter covers that one block.
        const block = await chain.getBlockByHash(hexToBytes(filter.blockHash));
        if (!block) throw new ResourceNotFoundError(`eth_newFilter: unknown block ${filter.blockHash}`);
        criteria.fromBlock = criteria.toBlock = block.header.number;
      }
      await feed.settled();
      const head = chain.headNumber();
      const historic =
        criteria.fromBlock !== undefined && criteria.fromBlock <= head
          ? await chain.getLogs({ fromBlock: criteria.fromBlock, toBlock: criteria.toBlock ?? head, addresses, topics })
          : [];
      return registry.newLogFilter(criteria, keyOf(ctx), historic);
    },
    eth_newBlockFilter: (_params, ctx) => registry.newBlockFilter(keyOf(ctx)),
    eth_newPendingTransactionFilter: (_params, ctx) => registry.newPendingTransactionFilter(keyOf(ctx)),
    async eth_getFilterChanges([id], ctx) {
      await feed.settled();
      const changes = registry.changes(id, keyOf(ctx));
      if (changes.kind === 'hashes') return changes.hashes.map(bytesToHex);
      return changes.logs.map((log) => ({ ...logEntryToRpc(log), removed: log.removed }));
    },
    async eth_getFilterLogs([id], ctx) {
      const criteria = registry.logCriteria(id, keyOf(ctx));
      await feed.settled();
      const head = chain.headNumber();
      const fromBlock = criteria.fromBlock ?? head;
      const toBlock = criteria.toBlock ?? head;
      const logs = await chain.getLogs({ fromBlock, toBlock, addresses: criteria.addresses, topics: criteria.topics });
      return logs.map(logEntryToRpc);
    },
    eth_uninstallFilter: ([id], ctx) => registry.uninstall(id, keyOf(ctx)),
  };
}
