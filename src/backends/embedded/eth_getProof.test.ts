// eth_getProof: the account and storage proofs verify against the block's state root.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MerklePatriciaTrie, verifyMPTWithMerkleProof } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { bytesToBigInt, hexToBytes, setLengthLeft } from '@ethereumjs/util';
import { type ChainRpcFixture, openChainRpcFixture, rpc, rpcResult } from './testing/chainRpc.js';

interface ProofResult {
  address: string;
  balance: string;
  nonce: string;
  codeHash: string;
  storageHash: string;
  accountProof: string[];
  storageProof: { key: string; value: string; proof: string[] }[];
}

async function provenValue(root: string, key: Uint8Array, proof: string[]): Promise<Uint8Array | null> {
  return verifyMPTWithMerkleProof(new MerklePatriciaTrie({ useKeyHashing: true }), hexToBytes(root as `0x${string}`), key, proof.map((p) => hexToBytes(p as `0x${string}`)));
}

describe('eth_getProof', () => {
  let f: ChainRpcFixture;
  beforeAll(async () => {
    f = await openChainRpcFixture();
  });
  afterAll(() => f.dispose());

  it('behavior: account and storage proofs verify against the state root, at latest and at history', async () => {
    for (const [block, count] of [['latest', 2n], ['0x2', 1n]] as const) {
      const proof = await rpcResult<ProofResult>(f.table, 'eth_getProof', [f.counter, ['0x0', '0x1'], block]);
      const header = await rpcResult<{ stateRoot: string }>(f.table, 'eth_getBlockByNumber', [block, false]);
      const accountRlp = await provenValue(header.stateRoot, hexToBytes(f.counter as `0x${string}`), proof.accountProof);
      const [nonce, balance, storageRoot, codeHash] = RLP.decode(accountRlp!) as Uint8Array[];
      expect(bytesToBigInt(nonce!)).toBe(BigInt(proof.nonce));
      expect(bytesToBigInt(balance!)).toBe(BigInt(proof.balance));
      expect(`0x${Buffer.from(storageRoot!).toString('hex')}`).toBe(proof.storageHash);
      expect(`0x${Buffer.from(codeHash!).toString('hex')}`).toBe(proof.codeHash);
      const [slot0, slot1] = proof.storageProof;
      expect(slot0).toMatchObject({ key: `0x${'0'.repeat(64)}`, value: `0x${count.toString(16)}` });
      const stored = await provenValue(proof.storageHash, setLengthLeft(hexToBytes('0x00'), 32), slot0!.proof);
      expect(bytesToBigInt(RLP.decode(stored!) as Uint8Array)).toBe(count);
      expect(slot1!.value).toBe('0x0');
      expect(await provenValue(proof.storageHash, setLengthLeft(hexToBytes('0x01'), 32), slot1!.proof)).toBeNull();
    }
  });

  it('behavior: an account that does not exist gets an exclusion proof', async () => {
    const missing = `0x${'42'.repeat(20)}`;
    const proof = await rpcResult<ProofResult>(f.table, 'eth_getProof', [missing, [], 'latest']);
    expect(proof).toMatchObject({ balance: '0x0', nonce: '0x0', storageProof: [] });
    const header = await rpcResult<{ stateRoot: string }>(f.table, 'eth_getBlockByNumber', ['latest', false]);
    expect(await provenValue(header.stateRoot, hexToBytes(missing as `0x${string}`), proof.accountProof)).toBeNull();
  });

  it('error: a malformed storage key names the parameter', async () => {
    expect(await rpc(f.table, 'eth_getProof', [f.counter, ['0xzz'], 'latest'])).toMatchObject({ error: { code: -32602, message: expect.stringContaining('storageKeys') } });
  });
});
