// Resolves the block parameter of a state method (eth_getBalance, eth_call, ...) or throws the
// error anvil gives: -32602 for a number beyond the head, -32001 for an unknown hash.
import type { Block } from '@ethereumjs/block';
import type { DevChain } from '../../engine/chain/devChain.js';
import { InvalidParamsError, ResourceNotFoundError } from '../../rpc/errors.js';
import { quantityToHex } from '../../rpc/hex.js';
import type { BlockId } from '../../rpc/schema/primitives.js';

/** The block `id` names (absent = latest). */
export async function requireBlock(chain: DevChain, id: BlockId | undefined): Promise<Block> {
  const resolved = await chain.resolveBlock(id ?? { kind: 'tag', tag: 'latest' });
  if (resolved) return resolved;
  if (id?.kind === 'number') {
    throw new InvalidParamsError(`block ${quantityToHex(id.number)} not found: the chain head is ${quantityToHex(chain.headNumber())}`);
  }
  throw new ResourceNotFoundError(`block ${id?.kind === 'hash' ? id.hash : 'unknown'} not found`);
}
