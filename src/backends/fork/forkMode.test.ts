// Fork mode against a real anvil as the remote: the dev chain starts on the remote block's state
// root, reads remote accounts, code and slots by proof, mines local transactions on real state
// roots, and refuses a data dir of another fork; a remote that stops answering fails reads.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Address, bytesToHex, hexToBytes, setLengthLeft } from '@ethereumjs/util';
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { type AnvilProcess, startAnvil } from '../../testing/startAnvil.js';
import { createDevChain, type DevChain } from '../../engine/chain/devChain.js';
import { resolveForkSetup } from './forkModeSetup.js';

/** Runtime: slot0 += 1, returns the new value. */
const COUNTER = '0x6000546001018060005560005260206000f3';
const CONTRACT = '0x00000000000000000000000000000000000c0de1';
const HOLDER = '0x00000000000000000000000000000000000b0b01';
/** Runtime: returns BLOCKHASH(0). */
const BLOCKHASH_ZERO = '0x60004060005260206000f3';
const HASH_READER = '0x00000000000000000000000000000000000b1a5e';
/** Runtime: SSTORE(0, 0). Its storage holds slots 0 and 7 only: a branch with two leaves, so clearing slot 0 needs slot 7's leaf. */
const CLEARER = '0x600060005500';
const CLEARER_ADDRESS = '0x00000000000000000000000000000000000c1ea2';

async function rpc(url: string, method: string, params: unknown[]): Promise<unknown> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(body.error.message);
  return body.result;
}

async function headOf(chain: DevChain) {
  return (await chain.getBlockByNumber(chain.headNumber()))!;
}

describe('fork mode (remote: anvil)', () => {
  let remote: AnvilProcess;
  let forkBlock: bigint;
  const dirs: string[] = [];
  const chains: DevChain[] = [];

  beforeAll(async () => {
    remote = await startAnvil(['--chain-id', '4242']);
    await rpc(remote.url, 'anvil_setCode', [CONTRACT, COUNTER]);
    await rpc(remote.url, 'anvil_setStorageAt', [CONTRACT, '0x' + '0'.repeat(64), '0x' + '0'.repeat(62) + '29']);
    await rpc(remote.url, 'anvil_setStorageAt', [CONTRACT, '0x' + '0'.repeat(63) + '7', '0x' + '0'.repeat(60) + 'beef']);
    await rpc(remote.url, 'anvil_setBalance', [HOLDER, '0x1234']);
    await rpc(remote.url, 'anvil_setCode', [HASH_READER, BLOCKHASH_ZERO]);
    await rpc(remote.url, 'anvil_setCode', [CLEARER_ADDRESS, CLEARER]);
    await rpc(remote.url, 'anvil_setStorageAt', [CLEARER_ADDRESS, '0x' + '0'.repeat(64), '0x' + '0'.repeat(63) + '1']);
    await rpc(remote.url, 'anvil_setStorageAt', [CLEARER_ADDRESS, '0x' + '0'.repeat(63) + '7', '0x' + '0'.repeat(63) + '2']);
    await rpc(remote.url, 'evm_mine', []);
    forkBlock = BigInt((await rpc(remote.url, 'eth_blockNumber', [])) as string);
  }, 30_000);

  afterAll(async () => {
    for (const chain of chains) await chain.close().catch(() => undefined);
    await remote?.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  async function openFork(dataDir?: string, url = remote.url, block: bigint | undefined = forkBlock): Promise<{ chain: DevChain; dataDir: string }> {
    const dir = dataDir ?? mkdtempSync(join(tmpdir(), 'tracehook-fork-'));
    if (!dataDir) dirs.push(dir);
    const fork = await resolveForkSetup(url, block, 'prague');
    const chain = await createDevChain({ dataDir: dir, fork, kzg: null });
    chains.push(chain);
    return { chain, dataDir: dir };
  }

  it('starts on the remote block: same number and hash, remote chain id, remote accounts, code and storage', async () => {
    const { chain } = await openFork();
    const remoteBlock = (await rpc(remote.url, 'eth_getBlockByNumber', [`0x${forkBlock.toString(16)}`, false])) as { hash: string; stateRoot: string };
    const head = (await chain.getBlockByNumber(forkBlock))!;
    expect(bytesToHex(head.hash())).toBe(remoteBlock.hash);
    expect(bytesToHex(head.header.stateRoot)).toBe(remoteBlock.stateRoot);
    expect(chain.chainId).toBe(4242n);
    const state = await chain.stateAt(head);
    expect((await state.getAccount(new Address(hexToBytes(HOLDER))))!.balance).toBe(0x1234n);
    expect(bytesToHex(await state.getCode(new Address(hexToBytes(CONTRACT))))).toBe(COUNTER);
    expect(bytesToHex(await state.getStorage(new Address(hexToBytes(CONTRACT)), setLengthLeft(hexToBytes('0x07'), 32)))).toBe('0xbeef');
    // eth_getProof of a remote slot equals the remote's own proof.
    const slot7 = setLengthLeft(hexToBytes('0x07'), 32);
    const fresh = (await openFork()).chain;
    const proof = await fresh.getProof(hexToBytes(CONTRACT), [slot7], (await fresh.getBlockByNumber(forkBlock))!);
    const remoteProof = (await rpc(remote.url, 'eth_getProof', [CONTRACT, [bytesToHex(slot7)], `0x${forkBlock.toString(16)}`])) as { storageProof: { proof: string[] }[] };
    expect(proof.storageProof[0]!.proof).toEqual(remoteProof.storageProof[0]!.proof);
    // An account the remote does not have is absent (its proof proves absence).
    expect(await state.getAccount(new Address(hexToBytes('0x00000000000000000000000000000000deadbeef')))).toBeUndefined();
  }, 30_000);

  it('mines a local transaction on remote state: same result and gas as anvil --fork-url', async () => {
    const { chain } = await openFork();
    // The reference: anvil forking the same remote block, the same transaction.
    const reference = await startAnvil(['--fork-url', remote.url, '--fork-block-number', forkBlock.toString()]);
    try {
      const from = chain.accounts[0]!.address.toString();
      const to = hexToBytes(CONTRACT);
      expect(bytesToHex(await chain.call({ from: chain.accounts[0]!.address.bytes, to }, (await headOf(chain))))).toBe(bytesToHex(setLengthLeft(hexToBytes('0x2a'), 32)));
      const hash = await chain.sendTransaction({ from: chain.accounts[0]!.address.bytes, to, gas: 100_000n });
      const block = (await headOf(chain));
      expect(block.header.number).toBe(forkBlock + 1n);
      const receipts = (await chain.getReceipts(block.hash()))!;
      expect(receipts).toHaveLength(1);
      const state = await chain.stateAt(block);
      expect(bytesToHex(await state.getStorage(new Address(hexToBytes(CONTRACT)), new Uint8Array(32)))).toBe('0x2a');
      const refHash = (await rpc(reference.url, 'eth_sendTransaction', [{ from, to: CONTRACT, gas: '0x186a0' }])) as string;
      let refReceipt = null as { gasUsed: string; status: string } | null;
      for (let i = 0; i < 100 && !refReceipt; i++) {
        refReceipt = (await rpc(reference.url, 'eth_getTransactionReceipt', [refHash])) as typeof refReceipt;
        if (!refReceipt) await new Promise((r) => setTimeout(r, 50));
      }
      if (!refReceipt) throw new Error('anvil --fork-url mined no receipt');
      expect(await chain.getTransaction(hash)).toBeDefined();
      expect(refReceipt.status).toBe('0x1');
      // Same gas as anvil --fork-url for the same call on the same remote state (cold slot, 0x29 → 0x2a).
      expect(receipts[0]!.cumulativeGasUsed).toBe(BigInt(refReceipt.gasUsed));
      expect(await rpc(reference.url, 'eth_getStorageAt', [CONTRACT, '0x0', 'latest'])).toBe('0x' + '0'.repeat(62) + '2a');

      // Clearing slot 0 must merge the branch onto slot 7's leaf, which no fetched proof holds.
      await chain.sendTransaction({ from: chain.accounts[0]!.address.bytes, to: hexToBytes(CLEARER_ADDRESS), gas: 100_000n });
      const cleared = await chain.stateAt(await headOf(chain));
      const clearer = new Address(hexToBytes(CLEARER_ADDRESS));
      expect((await chain.getReceipts((await headOf(chain)).hash()))![0]!.status).toBe(1);
      expect(bytesToHex(await cleared.getStorage(clearer, new Uint8Array(32)))).toBe('0x');
      expect(bytesToHex(await cleared.getStorage(clearer, setLengthLeft(hexToBytes('0x07'), 32)))).toBe('0x02');
      // ...and its storage root is a full node's, the trie of slot 7 alone: slot 7's leaf came
      // with the proof of a probe slot found under its path, not as an explicit empty value.
      const alone = new MerklePatriciaTrie({ useKeyHashing: true });
      await alone.put(setLengthLeft(hexToBytes('0x07'), 32), RLP.encode(new Uint8Array([2])));
      expect(bytesToHex((await cleared.getAccount(clearer))!.storageRoot)).toBe(bytesToHex(alone.root()));

      // BLOCKHASH below the fork block is the remote's.
      const remoteGenesis = (await rpc(remote.url, 'eth_getBlockByNumber', ['0x0', false])) as { hash: string };
      expect(bytesToHex(await chain.call({ to: hexToBytes(HASH_READER) }, await headOf(chain)))).toBe(remoteGenesis.hash);

      // anvil_reset goes back to the fork block with the dev accounts funded.
      await chain.reset();
      expect(chain.headNumber()).toBe(forkBlock);
      const reset = await chain.stateAt(await headOf(chain));
      expect(bytesToHex(await reset.getStorage(new Address(hexToBytes(CONTRACT)), new Uint8Array(32)))).toBe('0x29');
      expect((await reset.getAccount(chain.accounts[0]!.address))!.balance).toBe(10_000n * 10n ** 18n);
    } finally {
      await reference.stop();
    }
  }, 60_000);

  it('error: a remote whose fork block names the empty state root but holds state (a fresh anvil\'s genesis) is refused with the remedy; a later block forks', async () => {
    const fresh = await startAnvil();
    try {
      await expect(resolveForkSetup(fresh.url, undefined, 'prague')).rejects.toThrow(/block 0 names the empty state root but holds state .*: fork a later block/);
      await rpc(fresh.url, 'evm_mine', []);
      const setup = await resolveForkSetup(fresh.url, undefined, 'prague');
      setup.client.close();
      expect(setup.point.blockNumber).toBe(1n);
    } finally {
      await fresh.stop();
    }
  });

  it('reopens its data dir on the same fork and refuses another fork block', async () => {
    const { chain, dataDir } = await openFork();
    await chain.close();
    chains.splice(chains.indexOf(chain), 1);
    const again = await openFork(dataDir);
    expect((await headOf(again.chain)).header.number).toBe(forkBlock);
    await again.chain.close();
    chains.splice(chains.indexOf(again.chain), 1);
    // Another block of the same remote (mined now: its genesis block cannot be forked, above).
    await rpc(remote.url, 'evm_mine', []);
    await expect(openFork(dataDir, remote.url, forkBlock + 1n)).rejects.toThrow(/was created with .*fork/);
    // Nor without the fork, nor with another URL (the data dir keeps a digest of it).
    await expect(createDevChain({ dataDir, kzg: null })).rejects.toThrow(/was created with .*fork/);
    await expect(openFork(dataDir, remote.url.replace('127.0.0.1', 'localhost'))).rejects.toThrow(/was created with .*fork/);
  }, 30_000);

  it('a remote read that fails fails the request (no zeros)', async () => {
    const { chain } = await openFork();
    const other = await startAnvil(['--fork-url', remote.url, '--fork-block-number', forkBlock.toString()]);
    const { chain: viaOther } = await openFork(undefined, other.url);
    await other.stop();
    const state = await viaOther.stateAt((await headOf(viaOther)));
    // Both are on the remote and on no path this chain fetched yet.
    await expect(state.getAccount(new Address(hexToBytes(HOLDER)))).rejects.toThrow(/could not read the account/);
    await expect(viaOther.call({ to: hexToBytes(CONTRACT) }, await headOf(viaOther))).rejects.toThrow(/could not read/);
    expect(chain).toBeDefined();
  }, 60_000);
});
