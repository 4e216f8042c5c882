// `--upstream`: asks every node its chain id at start, so the network can be named from it
// (config/networkNames.ts). Nodes are named by index (`upstream[1]`), never by URL: a URL may hold
// a key.
import type { Logger } from '../log/createLogger.js';
import { createJsonRpcClient } from '../backends/upstream/jsonRpcClient.js';
import { ConfigError } from '../config/loadConfig.js';

export interface ProbeUpstreamChainIdOptions {
  logger: Logger;
  /** Deadline of each node's answer. Default 10,000 ms. */
  timeoutMs?: number;
}

/**
 * The chain id the `--upstream` nodes answer. A node that does not answer is logged and left out;
 * throws ConfigError when none answers or when two answer different ids.
 */
export async function probeUpstreamChainId(urls: readonly string[], options: ProbeUpstreamChainIdOptions): Promise<bigint> {
  const answers = await Promise.all(
    urls.map(async (url, i) => {
      const client = createJsonRpcClient({ url, label: `upstream[${i}]`, timeoutMs: options.timeoutMs ?? 10_000, maxResponseBytes: 64 * 1024, maxSockets: 1 });
      try {
        const result = await client.call('eth_chainId', []);
        if (typeof result !== 'string' || !/^0x[0-9a-fA-F]{1,64}$/.test(result)) throw new ConfigError(`upstream[${i}]: eth_chainId answered ${JSON.stringify(result).slice(0, 80)}, not a hex quantity`);
        return { ok: true as const, chainId: BigInt(result) };
      } catch (error) {
        if (error instanceof ConfigError) throw error;
        return { ok: false as const, reason: error instanceof Error ? error.message : String(error) };
      } finally {
        client.close();
      }
    }),
  );
  let chainId: { index: number; id: bigint } | undefined;
  answers.forEach((answer, i) => {
    if (!answer.ok) {
      options.logger.warn({ upstream: `upstream[${i}]`, reason: answer.reason }, 'upstream did not answer eth_chainId at start');
      return;
    }
    if (!chainId) chainId = { index: i, id: answer.chainId };
    else if (answer.chainId !== chainId.id) {
      throw new ConfigError(`upstream[${i}]: chain id ${answer.chainId} differs from upstream[${chainId.index}]'s ${chainId.id}; the nodes of one network must be on one chain`);
    }
  });
  if (!chainId) {
    const reasons = answers.map((a, i) => `upstream[${i}]: ${a.ok ? 'ok' : a.reason}`).join('; ');
    throw new ConfigError(`upstream: no node answered eth_chainId, so the network cannot be named (${reasons})`);
  }
  return chainId.id;
}
