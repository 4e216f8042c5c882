// The dev chain as a whole: anvil's genesis (accounts, balances, predeploys), options checked on
// reopen, and concurrent submissions and reads.
import { describe, expect, it } from 'vitest';
import { Address, bytesToHex, hexToBytes } from '@ethereumjs/util';
import { createDevChain } from './devChain.js';
import { CREATE2_DEPLOYER_ADDRESS, HISTORY_STORAGE_ADDRESS } from './genesis.js';
import { signWithDevKey } from './testing/tempChain.js';
import { useTempChains } from './testing/useTempChains.js';

const open = useTempChains();

describe('dev chain', () => {
  it('default: anvil genesis — the ten test-mnemonic accounts with 10,000 ETH, the CREATE2 deployer and the EIP-2935 contract', async () => {
    const { chain } = await open();
    expect(chain.accounts.map((a) => a.address.toString())).toEqual([
      '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266',
      '0x70997970c51812dc3a010c7d01b50e0d17dc79c8',
      '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc',
      '0x90f79bf6eb2c4f870365e785982e1f101e93b906',
      '0x15d34aaf54267db7d7c367839aaf71a00a2c6a65',
      '0x9965507d1a55bcc2695c58ba16fb37d819b0a4dc',
      '0x976ea74026e726554db657fa54763abd0c3a0aa9',
      '0x14dc79964da2c08b23698b3d3cc7ca32193d9955',
      '0x23618e81e3f5cdf7f54c3d65f7fbc0abf5b21e8f',
      '0xa0ee7a142d267c1f36714e4a8f75612f20a79720',
    ]);
    expect(bytesToHex(chain.accounts[0]!.privateKey)).toBe('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
    const genesis = (await chain.getBlockByNumber(0n))!;
    expect(genesis.header).toMatchObject({ number: 0n, gasLimit: 30_000_000n, baseFeePerGas: 1_000_000_000n, timestamp: 1_700_000_000n });
    const state = await chain.stateAt(genesis);
    expect((await state.getAccount(chain.accounts[9]!.address))!.balance).toBe(10_000n * 10n ** 18n);
    expect((await state.getCode(new Address(hexToBytes(CREATE2_DEPLOYER_ADDRESS)))).length).toBeGreaterThan(0);
    expect((await state.getCode(new Address(hexToBytes(HISTORY_STORAGE_ADDRESS)))).length).toBeGreaterThan(0);
    expect(chain.chainId).toBe(31337n);
  });

  it('args: hardfork, chain id, accounts, balance, base fee, gas limit and coinbase are options', async () => {
    const coinbase = '0x00000000000000000000000000000000000c0ffe';
    const { chain } = await open({ hardfork: 'cancun', chainId: 1337n, accountCount: 2, accountBalanceWei: 5n, baseFeeWei: 7n, gasLimit: 12_000_000n, coinbase });
    expect(chain.common.hardfork()).toBe('cancun');
    expect(chain.accounts).toHaveLength(2);
    await chain.mine();
    const block = (await chain.getBlockByNumber(1n))!;
    expect(block.header).toMatchObject({ gasLimit: 12_000_000n, baseFeePerGas: 7n });
    expect(block.header.coinbase.toString()).toBe(coinbase);
    const state = await chain.stateAt(block);
    expect((await state.getAccount(chain.accounts[1]!.address))!.balance).toBe(5n);
    // No EIP-2935 contract before Prague.
    expect((await state.getCode(new Address(hexToBytes(HISTORY_STORAGE_ADDRESS)))).length).toBe(0);
  });

  it('error: unknown hardfork, bad coinbase and a data dir created with other chain rules are refused', async () => {
    await expect(open({ hardfork: 'frontier' })).rejects.toThrow(/unsupported hardfork "frontier"/);
    await expect(open({ coinbase: '0x1234' })).rejects.toThrow(/invalid coinbase/);
    const t = await open();
    await t.chain.close();
    await expect(createDevChain({ dataDir: t.dataDir, chainId: 1n })).rejects.toThrow(/was created with .*31337.*cannot be reopened with .*"1"/);
    await expect(createDevChain({ dataDir: t.dataDir, hardfork: 'cancun' })).rejects.toThrow(/cannot be reopened/);
  });

  it('behavior: concurrent submissions are mined in call order while reads keep answering', async () => {
    const t = await open();
    const { chain } = t;
    const sends = Array.from({ length: 12 }, (_, i) =>
      chain.sendRawTransaction(
        signWithDevKey(chain, i % 3, { type: 2, nonce: BigInt(Math.floor(i / 3)), gasLimit: 21_000n, to: chain.accounts[5]!.address, value: BigInt(i + 1), maxFeePerGas: 3_000_000_000n, maxPriorityFeePerGas: 1n }).serialize(),
      ),
    );
    const reads = Array.from({ length: 12 }, async () => (await chain.stateAt((await chain.resolveBlock({ kind: 'tag', tag: 'latest' }))!)).getAccount(chain.accounts[5]!.address));
    const [hashes] = await Promise.all([Promise.all(sends), Promise.all(reads)]);
    expect(chain.headNumber()).toBe(12n);
    for (const [i, hash] of hashes.entries()) expect((await chain.getTransaction(hash))!.block.header.number).toBe(BigInt(i + 1));
    const state = await chain.stateAt((await chain.getBlockByNumber(12n))!);
    expect((await state.getAccount(chain.accounts[5]!.address))!.balance).toBe(10_000n * 10n ** 18n + 78n);
  });

  it('behavior: the mined block holds the admitted transaction objects, whose sender was recovered once', async () => {
    const { chain } = await open();
    const signed = signWithDevKey(chain, 1, { type: 2, nonce: 0n, gasLimit: 21_000n, to: chain.accounts[2]!.address, value: 5n, maxFeePerGas: 3_000_000_000n, maxPriorityFeePerGas: 1n });
    const hash = await chain.sendRawTransaction(signed.serialize());
    const { tx, block } = (await chain.getTransaction(hash))!;
    // A re-created transaction would start with an empty cache and recover its sender again.
    expect((tx as unknown as { cache: { senderPubKey?: Uint8Array } }).cache.senderPubKey).toBeDefined();
    expect(tx.getSenderAddress().equals(chain.accounts[1]!.address)).toBe(true);
    expect(tx.hash()).toEqual(hash);
    expect(block.transactions[0]).toBe(tx);
    expect(block.serialize()).toEqual((await chain.getBlockByNumber(1n))!.serialize());
  });
});
