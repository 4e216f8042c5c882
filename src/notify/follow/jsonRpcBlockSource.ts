// BlockSource over an Ethereum node's JSON-RPC API (anvil, geth, reth, a hosted provider): the
// block by number, then its receipts and callTracer frames by that block's hash, so the three
// answers always describe the same block even while the node reorganises; or, when no webhook can
// want the block, its header alone.
import type { Hex } from '../../rpc/hex.js';
import { hexToBytes } from '../../rpc/hex.js';
import { RpcError } from '../../rpc/errors.js';
import { HASH32_PATTERN } from '../../rpc/schema/primitives.js';
import { createJsonRpcClient } from '../../backends/upstream/jsonRpcClient.js';
import type { BlockData, CallFrame, RpcBlockHeader, RpcReceipt, RpcTransaction } from '../extract/blockData.js';
import type { BlockSource } from './blockSource.js';

/** Sends one JSON-RPC request; rejects with an RpcError carrying the node's code for an error answer. */
export type JsonRpcRequest = (method: string, params: unknown[]) => Promise<unknown>;

/** A JsonRpcRequest over HTTP with the shared client (answers checked, errors say if retryable). */
export function createHttpJsonRpc(url: string, options: { timeoutMs?: number; headers?: Record<string, string> } = {}): JsonRpcRequest {
  const client = createJsonRpcClient({ url, timeoutMs: options.timeoutMs, headers: options.headers, label: 'follower source' });
  return (method, params) => client.call(method, params);
}

export interface JsonRpcBlockSourceOptions {
  request: JsonRpcRequest;
  /** Ask for call frames (debug_traceBlockByHash, callTracer). Default true; off when the node has no debug API. */
  traces?: boolean;
}

type RpcFullBlock = RpcBlockHeader & { transactions: RpcTransaction[] };

const METHOD_NOT_FOUND = -32601;

export function createJsonRpcBlockSource(options: JsonRpcBlockSourceOptions): BlockSource {
  const { request } = options;
  let traces = options.traces ?? true;
  let blockReceipts = true;

  async function receiptsOf(block: RpcFullBlock): Promise<RpcReceipt[]> {
    if (blockReceipts) {
      try {
        // null means "unknown block" (geth); for a block we just read, ask per transaction instead.
        const all = (await request('eth_getBlockReceipts', [block.hash])) as RpcReceipt[] | null;
        if (all) return all;
      } catch (error) {
        if (!(error instanceof RpcError && error.code === METHOD_NOT_FOUND)) throw error;
        blockReceipts = false;
      }
    }
    return Promise.all(block.transactions.map(async (tx) => (await request('eth_getTransactionReceipt', [tx.hash])) as RpcReceipt));
  }

  async function framesOf(block: RpcFullBlock): Promise<CallFrame[] | null> {
    if (!traces) return null;
    try {
      const result = (await request('debug_traceBlockByHash', [block.hash, { tracer: 'callTracer' }])) as { result: CallFrame }[];
      return result.map((entry) => entry.result);
    } catch (error) {
      if (!(error instanceof RpcError && error.code === METHOD_NOT_FOUND)) throw error;
      traces = false;
      return null;
    }
  }

  async function complete(block: RpcFullBlock | null): Promise<BlockData | undefined> {
    if (!block) return undefined;
    const { transactions, ...header } = block;
    const [receipts, callFrames] = await Promise.all([receiptsOf(block), framesOf(block)]);
    return { header: header as RpcBlockHeader, transactions, receipts, callFrames };
  }

  const quantity = (n: bigint) => `0x${n.toString(16)}`;

  return {
    async head() {
      const block = (await request('eth_getBlockByNumber', ['latest', false])) as RpcBlockHeader;
      return { number: BigInt(block.number), hash: block.hash.toLowerCase() as Hex };
    },
    async canonicalHash(number) {
      if (number < 0n) return undefined;
      const block = (await request('eth_getBlockByNumber', [quantity(number), false])) as RpcBlockHeader | null;
      return block?.hash.toLowerCase() as Hex | undefined;
    },
    async headerByNumber(number) {
      if (number < 0n) return undefined;
      // The header alone (no receipts, no call frames): what the follower asks when no webhook can want the block.
      const block = (await request('eth_getBlockByNumber', [quantity(number), false])) as RpcBlockHeader | null;
      if (!block) return undefined;
      if (typeof block.number !== 'string' || BigInt(block.number) !== number || !HASH32_PATTERN.test(block.hash) || !HASH32_PATTERN.test(block.parentHash)) {
        throw new Error(`block source returned inconsistent data: eth_getBlockByNumber(${quantity(number)}) answered ${JSON.stringify({ number: block.number, hash: block.hash, parentHash: block.parentHash })}`);
      }
      return { number, hash: block.hash.toLowerCase() as Hex, parentHash: block.parentHash.toLowerCase() as Hex };
    },
    async blockByNumber(number) {
      if (number < 0n) return undefined;
      return complete((await request('eth_getBlockByNumber', [quantity(number), true])) as RpcFullBlock | null);
    },
    async blockByHash(hash) {
      return complete((await request('eth_getBlockByHash', [hash, true])) as RpcFullBlock | null);
    },
    async call(to, data, at) {
      try {
        const result = (await request('eth_call', [{ to, data }, { blockHash: at.hash }])) as Hex;
        return hexToBytes(result);
      } catch (error) {
        // A revert (code 3 or the generic -32000 "execution reverted") means "no such function".
        if (error instanceof RpcError && (error.code === 3 || /revert/i.test(error.message))) return null;
        throw error;
      }
    },
  };
}
