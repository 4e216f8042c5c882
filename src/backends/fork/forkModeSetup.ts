// Resolves `--fork-url URL [--fork-block N]` (issue 13 item 3) against the remote: its chain id,
// the fork block (its latest when no number is given) and the rules it ran under
// (remoteHardfork.ts), with the JSON-RPC client the dev chain reads remote state through.
import { KECCAK256_RLP_S } from '@ethereumjs/util';
import type { ForkSetup } from '../../engine/chain/forkGenesis.js';
import { ServiceError } from '../../rpc/errors.js';
import { createJsonRpcClient } from '../upstream/jsonRpcClient.js';
import { type RemoteHeader, remoteHardfork } from './remoteHardfork.js';

/**
 * A block whose header names the empty state root commits to no state, yet a remote may still hold
 * some there (anvil's genesis block does): proofs of it cannot be checked against the header, so
 * the fork is refused with the remedy instead of failing on its first account read. An empty trie's
 * proof of any address has no nodes.
 */
async function refuseUncommittedState(client: { call(method: string, params: unknown[]): Promise<unknown> }, tag: string, number: bigint): Promise<void> {
  const proof = (await client.call('eth_getProof', ['0x0000000000000000000000000000000000000000', [], tag])) as { accountProof?: unknown[] } | null;
  if ((proof?.accountProof?.length ?? 0) === 0) return;
  throw new ServiceError(`the fork remote's block ${number} names the empty state root but holds state (as anvil's genesis block does), so its state cannot be verified`, {
    details: 'fork a later block: mine one on the remote first (e.g. evm_mine) or pass --fork-block',
  });
}

/** Reads the fork point; the client it returns stays open for the chain (close it with the chain). */
export async function resolveForkSetup(url: string, blockNumber: bigint | undefined, configuredHardfork: string): Promise<ForkSetup> {
  // The label, not the URL, names the remote in errors: the URL may hold a key.
  const client = createJsonRpcClient({ url, label: 'fork remote' });
  try {
    const tag = blockNumber === undefined ? 'latest' : `0x${blockNumber.toString(16)}`;
    const [chainIdHex, header] = (await Promise.all([client.call('eth_chainId', []), client.call('eth_getBlockByNumber', [tag, false])])) as [string, Record<string, unknown> | null];
    if (!header) throw new ServiceError(`the fork remote has no block ${blockNumber}`);
    const chainId = BigInt(chainIdHex);
    const number = BigInt(header.number as string);
    const hardfork = remoteHardfork(chainId, header as unknown as RemoteHeader, configuredHardfork);
    if (String(header.stateRoot).toLowerCase() === KECCAK256_RLP_S) await refuseUncommittedState(client, tag, number);
    return { point: { url, blockNumber: number, blockHash: (header.hash as string).toLowerCase() }, header, chainId, hardfork, client: { call: (method, params) => client.call(method, params), close: () => client.close() } };
  } catch (error) {
    client.close();
    if (error instanceof ServiceError) throw error;
    throw new ServiceError(`cannot read the fork block from the fork remote: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}
