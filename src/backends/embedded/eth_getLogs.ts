// eth_getLogs: logs matching a block hash or a block range, addresses and topic positions
// (null = any, arrays = any of). The range is capped (LimitExceededError, -32005).
import type { DevChain } from '../../engine/chain/devChain.js';
import { InvalidParamsError, ServerError } from '../../rpc/errors.js';
import { hexToBytes } from '../../rpc/hex.js';
import type { ethSchema } from '../../rpc/schema/eth.js';
import type { BlockId } from '../../rpc/schema/primitives.js';
import type { ChainMethodDeps } from './chainMethodDeps.js';
import type { MethodHandler } from './methodTable.js';
import { logEntryToRpc } from './rpcLog.js';

async function blockIdToNumber(chain: DevChain, id: BlockId | undefined): Promise<bigint> {
  if (!id) return chain.headNumber();
  if (id.kind === 'number') return id.number;
  const block = await chain.resolveBlock(id);
  return block ? block.header.number : chain.headNumber();
}

export function eth_getLogs({ chain }: ChainMethodDeps): MethodHandler<(typeof ethSchema)['eth_getLogs']> {
  return async ([filter]) => {
    let fromBlock: bigint;
    let toBlock: bigint;
    if (filter.blockHash) {
      const block = await chain.getBlockByHash(hexToBytes(filter.blockHash));
      if (!block) throw new ServerError(`unknown block ${filter.blockHash}`);
      fromBlock = toBlock = block.header.number;
    } else {
      fromBlock = await blockIdToNumber(chain, filter.fromBlock);
      toBlock = await blockIdToNumber(chain, filter.toBlock);
      if (fromBlock > toBlock && toBlock <= chain.headNumber()) {
        throw new InvalidParamsError(`eth_getLogs: invalid block range params: fromBlock ${fromBlock} is after toBlock ${toBlock}`);
      }
    }
    const addresses = filter.address === undefined ? undefined : (Array.isArray(filter.address) ? filter.address : [filter.address]).map(hexToBytes);
    const topics = (filter.topics ?? []).map((t) => {
      if (t === null) return null;
      const options = Array.isArray(t) ? t : [t];
      // A null inside an OR-array matches anything at that position.
      return options.some((o) => o === null) ? null : options.map((o) => hexToBytes(o!));
    });
    const entries = await chain.getLogs({ fromBlock, toBlock, addresses, topics });
    return entries.map(logEntryToRpc);
  };
}
