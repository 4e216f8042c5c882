// anvil's dev-node methods beyond the state setters, with their hardhat_/evm_ twins: impersonation,
// time (evm_increaseTime, timestamp interval), mining mode (automine, interval), the next blocks'
// gas limit, base fee and coinbase, dropping a pooled transaction, and anvil_nodeInfo /
// anvil_metadata. Answers have anvil 1.7.1's shapes (e.g. evm_increaseTime's total offset as a number).
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { parseStateDumpOffThread } from '../../engine/chain/stateDumpParsing.js';
import { InvalidParamsError } from '../../rpc/errors.js';
import { bytesToHex, hexToBytes, quantityToHex } from '../../rpc/hex.js';
import type { evmSchema } from '../../rpc/schema/evm.js';
import type { ChainMethodDeps } from './chainMethodDeps.js';
import type { MethodHandler } from './methodTable.js';

type DevSettingMethods = Omit<
  typeof evmSchema,
  | 'evm_mine'
  | 'evm_snapshot'
  | 'evm_revert'
  | 'evm_setNextBlockTimestamp'
  | 'anvil_mine'
  | 'hardhat_mine'
  | 'anvil_setBalance'
  | 'hardhat_setBalance'
  | 'anvil_setCode'
  | 'hardhat_setCode'
  | 'anvil_setNonce'
  | 'hardhat_setNonce'
  | 'anvil_setStorageAt'
  | 'hardhat_setStorageAt'
>;
type Handlers = { [K in keyof DevSettingMethods]: MethodHandler<DevSettingMethods[K]> };

export function createDevSettingHandlers({ chain, clientVersion = 'tracehook' }: ChainMethodDeps & { clientVersion?: string }): Handlers {
  // anvil: a random id per running instance, so a client can tell a restarted node apart.
  const instanceId = bytesToHex(randomBytes(32));
  const impersonate: Handlers['anvil_impersonateAccount'] = ([address]) => {
    chain.impersonate(hexToBytes(address));
    return null;
  };
  const stopImpersonating: Handlers['anvil_stopImpersonatingAccount'] = ([address]) => {
    chain.stopImpersonating(hexToBytes(address));
    return null;
  };
  const increaseTime: Handlers['evm_increaseTime'] = async ([seconds]) => Number(await chain.increaseTime(seconds));
  const setAutomine: Handlers['evm_setAutomine'] = async ([enabled]) => {
    await chain.setAutomine(enabled);
    return null;
  };
  const getAutomine: Handlers['anvil_getAutomine'] = () => chain.automine();
  const setIntervalMining: Handlers['evm_setIntervalMining'] = ([seconds]) => {
    chain.setIntervalMining(Number(seconds));
    return null;
  };
  const setNextBaseFee: Handlers['anvil_setNextBlockBaseFeePerGas'] = async ([wei]) => {
    await chain.setNextBlockBaseFee(wei);
    return null;
  };
  const setCoinbase: Handlers['anvil_setCoinbase'] = async ([address]) => {
    await chain.setCoinbase(hexToBytes(address));
    return null;
  };
  const dropTransaction: Handlers['anvil_dropTransaction'] = async ([hash]) => {
    await chain.dropTransaction(hexToBytes(hash));
    return null;
  };
  const reset: Handlers['anvil_reset'] = async ([options]) => {
    // viem sends `{forking: {}}` for a plain reset: only a fork URL asks for forking.
    const forking = options?.forking as { jsonRpcUrl?: unknown } | null | undefined;
    if (forking && typeof forking === 'object' && forking.jsonRpcUrl !== undefined && forking.jsonRpcUrl !== null) {
      throw new InvalidParamsError('anvil_reset: forking is not supported by the embedded chain; call it without options to go back to genesis');
    }
    await chain.reset();
    return null;
  };
  const metadata: Handlers['anvil_metadata'] = async () => {
    const head = await chain.resolveBlock({ kind: 'tag', tag: 'latest' });
    return {
      clientVersion,
      chainId: Number(chain.chainId),
      instanceId,
      latestBlockNumber: Number(chain.headNumber()),
      latestBlockHash: bytesToHex(head!.hash()),
      forkedNetwork: null,
      // anvil: snapshot id → [block number, block hash] it returns to.
      snapshots: Object.fromEntries(
        await Promise.all([...chain.snapshots()].map(async ([id, number]) => [quantityToHex(id), [Number(number), bytesToHex((await chain.getBlockByNumber(number))?.hash() ?? new Uint8Array(32))]])),
      ),
    };
  };
  return {
    anvil_impersonateAccount: impersonate,
    hardhat_impersonateAccount: impersonate,
    anvil_stopImpersonatingAccount: stopImpersonating,
    hardhat_stopImpersonatingAccount: stopImpersonating,
    anvil_autoImpersonateAccount: ([enabled]) => {
      chain.setAutoImpersonate(enabled);
      return null;
    },
    evm_increaseTime: increaseTime,
    anvil_increaseTime: increaseTime,
    evm_setAutomine: setAutomine,
    anvil_setAutomine: setAutomine,
    anvil_getAutomine: getAutomine,
    hardhat_getAutomine: getAutomine,
    evm_setIntervalMining: setIntervalMining,
    anvil_setIntervalMining: setIntervalMining,
    anvil_setBlockTimestampInterval: async ([seconds]) => {
      await chain.setBlockTimestampInterval(seconds);
      return null;
    },
    anvil_removeBlockTimestampInterval: async () => {
      await chain.setBlockTimestampInterval(undefined);
      return true;
    },
    evm_setBlockGasLimit: async ([gasLimit]) => {
      await chain.setBlockGasLimit(gasLimit);
      return true;
    },
    anvil_setNextBlockBaseFeePerGas: setNextBaseFee,
    hardhat_setNextBlockBaseFeePerGas: setNextBaseFee,
    anvil_setCoinbase: setCoinbase,
    hardhat_setCoinbase: setCoinbase,
    anvil_dropTransaction: dropTransaction,
    hardhat_dropTransaction: dropTransaction,
    async anvil_nodeInfo() {
      const head = (await chain.resolveBlock({ kind: 'tag', tag: 'latest' }))!;
      const fork = chain.config.hardfork;
      return {
        currentBlockNumber: quantityToHex(head.header.number),
        currentBlockTimestamp: Number(head.header.timestamp),
        currentBlockHash: bytesToHex(head.hash()),
        hardFork: fork.charAt(0).toUpperCase() + fork.slice(1),
        transactionOrder: 'fifo',
        environment: {
          baseFee: quantityToHex(chain.nextBaseFee()),
          chainId: Number(chain.chainId),
          gasLimit: quantityToHex(chain.nextGasLimit()),
          gasPrice: quantityToHex(chain.nextBaseFee() + (await chain.suggestedPriorityFee())),
        },
        forkConfig: { forkUrl: null, forkBlockNumber: null, forkRetryBackoff: null },
      };
    },
    // anvil answers the document gzipped, as hex; anvil_loadState takes that (or plain JSON) back.
    anvil_dumpState: async () => bytesToHex(gzipSync(JSON.stringify(await chain.dumpState()))),
    anvil_loadState: async ([state]) => {
      await chain.loadState(await parseStateDumpOffThread(state));
      return true;
    },
    anvil_reset: reset,
    hardhat_reset: reset,
    anvil_metadata: metadata,
    hardhat_metadata: metadata,
  };
}
