// A tiny but real JSON-RPC namespace over in-memory state, for gateway tests and the benchmark
// until the embedded chain's namespace is wired in: metadata, a block counter, balances, recorded
// traces, methods that misbehave on purpose (internal error, slow call) and a small bounded queue
// that refuses work with -32005 when full, as the trace pool does.
import { z } from 'zod';
import { defineMethod, optionalParam, param } from '../../rpc/schema/defineMethod.js';
import { Address, BlockNumberOrHash, Hash32 } from '../../rpc/schema/primitives.js';
import { createMethodTable, defineNamespace, type MethodTable } from '../../backends/embedded/methodTable.js';
import { quantityToHex, type Hex } from '../../rpc/hex.js';
import { LimitExceededError } from '../../rpc/errors.js';

export interface TestChainState {
  chainId: bigint;
  blockNumber: bigint;
  balances: Map<Hex, bigint>;
  /** Recorded trace_transaction answers by lowercase hash. */
  traces: Map<Hex, unknown[]>;
  /** test_sleep calls currently running (lets tests wait until a call is in flight). */
  sleeping: number;
  /** test_queued calls admitted at once at most; more are refused with -32005 before any work. */
  queueLimit: number;
  queued: number;
}

export const testSchema = {
  web3_clientVersion: defineMethod(),
  eth_chainId: defineMethod(),
  net_version: defineMethod(),
  eth_blockNumber: defineMethod(),
  eth_getBalance: defineMethod(param('address', Address), optionalParam('block', BlockNumberOrHash)),
  trace_transaction: defineMethod(param('transactionHash', Hash32)),
  test_fail: defineMethod(),
  test_sleep: defineMethod(param('ms', z.number().int().min(0).max(60_000))),
  /** test_sleep listening through `ctx.onCancel` (as the trace pool does) instead of `ctx.signal`. */
  test_sleepOnCancel: defineMethod(param('ms', z.number().int().min(0).max(60_000))),
  test_queued: defineMethod(param('ms', z.number().int().min(0).max(60_000))),
  test_overCap: defineMethod(),
  test_big: defineMethod(param('chars', z.number().int().min(0).max(10_000_000))),
};

export function createTestState(): TestChainState {
  return { chainId: 31337n, blockNumber: 0x18n, balances: new Map(), traces: new Map(), sleeping: 0, queueLimit: 2, queued: 0 };
}

export function createTestTable(state: TestChainState = createTestState()): MethodTable {
  return createMethodTable(
    defineNamespace(testSchema, {
      web3_clientVersion: () => 'tracehook-test/v0',
      eth_chainId: () => quantityToHex(state.chainId),
      net_version: () => state.chainId.toString(),
      eth_blockNumber: () => quantityToHex(state.blockNumber),
      eth_getBalance: ([address]) => quantityToHex(state.balances.get(address) ?? 0n),
      trace_transaction: ([hash]) => state.traces.get(hash) ?? [],
      test_fail: () => {
        // Looks like an internal failure that carries secrets; none of it may reach the caller.
        throw new Error('db password=hunter2 at /srv/internal/path');
      },
      test_sleep: ([ms], ctx) =>
        new Promise((resolve) => {
          state.sleeping++;
          const done = (answer: string) => {
            state.sleeping--;
            resolve(answer);
          };
          const timer = setTimeout(() => done('slept'), ms);
          ctx.signal.addEventListener('abort', () => {
            clearTimeout(timer);
            done('aborted');
          });
        }),
      test_sleepOnCancel: ([ms], ctx) =>
        new Promise((resolve, reject) => {
          const timer = setTimeout(() => {
            unwatch?.();
            state.sleeping--;
            resolve('slept');
          }, ms);
          const unwatch = ctx.onCancel?.(() => {
            clearTimeout(timer);
            state.sleeping--;
            resolve('aborted');
          });
          if (!unwatch) {
            clearTimeout(timer);
            reject(new Error('test_sleepOnCancel needs a context with onCancel that is not cancelled yet'));
            return;
          }
          state.sleeping++;
        }),
      test_queued: ([ms]) => {
        if (state.queued >= state.queueLimit) return Promise.reject(new LimitExceededError(`test queue is full (${state.queueLimit} waiting); retry later`, { beforeWork: true }));
        state.queued++;
        return new Promise((resolve) =>
          setTimeout(() => {
            state.queued--;
            resolve('done');
          }, ms),
        );
      },
      // A limit reached while working (like a trace over its output cap): -32005, but billed.
      test_overCap: () => Promise.reject(new LimitExceededError('test output exceeds its cap')),
      test_big: ([chars]) => 'x'.repeat(chars),
    }),
  );
}
