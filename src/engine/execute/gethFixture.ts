// Sets up one go-ethereum tracer fixture for execution: an in-memory state holding exactly
// `genesis.alloc`, the fork rules of `genesis.config` at the block in `context`, that block, and
// the transaction from `input` (a signed raw transaction, or a call object in core-geth's
// `state_diff` files). Format: ../shared/conformance/README.md §1.1-1.2.
import { createBlock, type Block } from '@ethereumjs/block';
import { Hardfork } from '@ethereumjs/common';
import { CacheType, Caches, MerkleStateManager } from '@ethereumjs/statemanager';
import { createTxFromRLP, type TypedTransaction } from '@ethereumjs/tx';
import { Account, Address, bigIntToBytes, setLengthLeft, type KZG } from '@ethereumjs/util';
import { createVM, type VM } from '@ethereumjs/vm';
import { hexToBytes } from '../../rpc/hex.js';
import { callToTransaction, type CallRequest } from './callTransaction.js';
import { chainIdOf, createPinnedCommon, hardforkAt, isMergedAt } from './gethConfig.js';

export interface GethFixtureAccount {
  balance?: string;
  nonce?: string | number;
  code?: string;
  storage?: Record<string, string>;
}

export interface GethFixtureCall {
  from?: string;
  to?: string;
  gas?: string;
  gasPrice?: string;
  value?: string;
  data?: string;
  input?: string;
}

export interface GethFixture {
  genesis: {
    config: Record<string, unknown>;
    alloc: Record<string, GethFixtureAccount>;
    mixHash?: string;
    excessBlobGas?: string;
    blobGasUsed?: string;
  };
  context: {
    number: string;
    timestamp: string;
    difficulty?: string;
    gasLimit: string;
    miner: string;
    baseFeePerGas?: string;
  };
  input: string | GethFixtureCall;
  tracerConfig?: Record<string, unknown>;
  stateOverrides?: Record<string, { balance?: string; nonce?: string; code?: string }>;
  result: unknown;
}

export interface PreparedFixture {
  vm: VM;
  tx: TypedTransaction;
  block: Block;
  hardfork: Hardfork;
  /** True for call-object fixtures: run without a nonce check. */
  isCall: boolean;
}

/** Decimal string, hex string or JSON number, as fixtures mix them. */
function num(value: string | number | undefined): bigint {
  if (value === undefined || value === '') return 0n;
  return BigInt(value);
}

function prefixed(hex: string): string {
  return hex.startsWith('0x') || hex.startsWith('0X') ? hex : `0x${hex}`;
}

async function putAccount(sm: MerkleStateManager, address: string, spec: GethFixtureAccount): Promise<void> {
  const addr = new Address(hexToBytes(address));
  await sm.putAccount(addr, new Account(num(spec.nonce), num(spec.balance)));
  if (spec.code && spec.code !== '0x') await sm.putCode(addr, hexToBytes(spec.code));
  for (const [slot, value] of Object.entries(spec.storage ?? {})) {
    const v = hexToBytes(prefixed(value));
    if (v.every((b) => b === 0)) continue;
    await sm.putStorage(addr, setLengthLeft(bigIntToBytes(BigInt(slot)), 32), v);
  }
}

function toCallRequest(call: GethFixtureCall): CallRequest {
  const data = call.data ?? call.input;
  return {
    from: call.from ? hexToBytes(call.from) : undefined,
    to: call.to ? hexToBytes(call.to) : undefined,
    gas: call.gas !== undefined ? BigInt(call.gas) : undefined,
    gasPrice: call.gasPrice !== undefined ? BigInt(call.gasPrice) : undefined,
    value: call.value !== undefined ? BigInt(call.value) : undefined,
    data: data ? hexToBytes(data) : undefined,
  };
}

/** Builds the VM, block and transaction of a fixture. `kzg` is needed only for blob transactions. */
export async function prepareGethFixture(fixture: GethFixture, options: { kzg?: KZG } = {}): Promise<PreparedFixture> {
  const { genesis, context } = fixture;
  const number = num(context.number);
  const timestamp = num(context.timestamp);
  const hardfork = hardforkAt(genesis.config, number, timestamp);
  const common = createPinnedCommon({ chainId: chainIdOf(genesis.config), hardfork, kzg: options.kzg });
  const type = CacheType.ORDERED_MAP;
  const sm = new MerkleStateManager({ common, caches: new Caches({ account: { type }, storage: { type }, code: { type } }) });
  for (const [address, spec] of Object.entries(genesis.alloc)) await putAccount(sm, address, spec);
  for (const [address, override] of Object.entries(fixture.stateOverrides ?? {})) {
    const addr = new Address(hexToBytes(address));
    const account = (await sm.getAccount(addr)) ?? new Account();
    if (override.balance !== undefined) account.balance = BigInt(override.balance);
    if (override.nonce !== undefined) account.nonce = BigInt(override.nonce);
    await sm.putAccount(addr, account);
    if (override.code !== undefined) await sm.putCode(addr, hexToBytes(override.code));
  }
  const vm = await createVM({ common, stateManager: sm });
  const merged = isMergedAt(genesis.config, number);
  const london = common.gteHardfork(Hardfork.London);
  const blobs = common.isActivatedEIP(4844);
  const block = createBlock(
    {
      header: {
        number,
        timestamp,
        gasLimit: num(context.gasLimit),
        difficulty: merged ? 0n : num(context.difficulty),
        coinbase: new Address(hexToBytes(context.miner)),
        baseFeePerGas: london ? num(context.baseFeePerGas) : undefined,
        mixHash: merged && genesis.mixHash ? hexToBytes(genesis.mixHash) : undefined,
        excessBlobGas: blobs ? 0n : undefined,
        blobGasUsed: blobs ? 0n : undefined,
      },
    },
    { common, skipConsensusFormatValidation: true },
  );
  if (typeof fixture.input === 'string') {
    const tx = createTxFromRLP(hexToBytes(prefixed(fixture.input)), { common });
    return { vm, tx, block, hardfork, isCall: false };
  }
  const call = toCallRequest(fixture.input);
  const sender = call.from ? await sm.getAccount(new Address(call.from)) : undefined;
  const tx = callToTransaction(call, { common, defaultGas: 50_000_000n, nonce: sender?.nonce ?? 0n });
  return { vm, tx, block, hardfork, isCall: true };
}
