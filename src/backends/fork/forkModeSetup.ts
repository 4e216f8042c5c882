// Resolves `--fork-url URL [--fork-block N]` (issue 13 item 3) against the remote: its chain id,
// the fork block (its latest when no number is given) and the rules it ran under
// (remoteHardfork.ts), with the JSON-RPC client the dev chain reads remote state through.
import type { ForkSetup } from '../../engine/chain/forkGenesis.js';
import { ServiceError } from '../../rpc/errors.js';
import { createJsonRpcClient } from '../upstream/jsonRpcClient.js';
import { type RemoteHeader, remoteHardfork } from './remoteHardfork.js';

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
    return { point: { url, blockNumber: number, blockHash: (header.hash as string).toLowerCase() }, header, chainId, hardfork, client: { call: (method, params) => client.call(method, params), close: () => client.close() } };
  } catch (error) {
    client.close();
    if (error instanceof ServiceError) throw error;
    throw new ServiceError(`cannot read the fork block from the fork remote: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}
