// Refused transactions: each gets geth's error and leaves the chain exactly as it was.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RLP } from '@ethereumjs/rlp';
import { Address, bigIntToUnpaddedBytes, bytesToHex, hexToBytes } from '@ethereumjs/util';
import { createTx } from '@ethereumjs/tx';
import { InvalidParamsError, ServerError } from '../../rpc/errors.js';
import { createChainCommon } from './chainConfig.js';
import { type TempChain, openTempChain, signWithDevKey } from './testing/tempChain.js';

const FEES = { type: 2, maxFeePerGas: 3_000_000_000n, maxPriorityFeePerGas: 1n };

describe('transaction admission', () => {
  let temp: TempChain;
  beforeEach(async () => {
    temp = await openTempChain();
    // One mined transaction so account 0 has nonce 1.
    await temp.chain.sendRawTransaction(signWithDevKey(temp.chain, 0, { ...FEES, nonce: 0n, gasLimit: 21_000n, to: temp.chain.accounts[1]!.address, value: 1n }).serialize());
  });
  afterEach(() => temp.dispose());

  async function snapshotOf() {
    const { chain } = temp;
    const state = await chain.stateAt((await chain.getBlockByNumber(chain.headNumber()))!);
    const a0 = await state.getAccount(chain.accounts[0]!.address);
    return { head: chain.headNumber(), headHash: bytesToHex((await chain.getBlockByNumber(chain.headNumber()))!.hash()), nonce: a0?.nonce, balance: a0?.balance };
  }

  async function expectRefused(raw: Uint8Array, errorClass: typeof ServerError | typeof InvalidParamsError, message: string | RegExp) {
    const before = await snapshotOf();
    const attempt = temp.chain.sendRawTransaction(raw);
    await expect(attempt).rejects.toBeInstanceOf(errorClass);
    await expect(attempt).rejects.toThrow(message);
    expect(await snapshotOf()).toEqual(before);
  }

  const tx = (overrides: Record<string, unknown> = {}, index = 0) =>
    signWithDevKey(temp.chain, index, { ...FEES, nonce: 1n, gasLimit: 21_000n, to: temp.chain.accounts[2]!.address, value: 1n, ...overrides }).serialize();

  it('error: nonce too low', () => expectRefused(tx({ nonce: 0n }), ServerError, 'nonce too low: next nonce 1, tx nonce 0'));
  it('error: nonce too high', () => expectRefused(tx({ nonce: 5n }), ServerError, 'nonce too high: next nonce 1, tx nonce 5'));
  it('error: insufficient funds', () =>
    expectRefused(tx({ value: 10n ** 24n }), ServerError, /^insufficient funds for gas \* price \+ value: address 0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266 have \d+ want \d+$/));
  it('error: intrinsic gas too low', () => expectRefused(tx({ gasLimit: 20_000n }), ServerError, 'intrinsic gas too low: have 20000, want 21000'));
  it('error: gas above the block gas limit', () => expectRefused(tx({ gasLimit: 30_000_001n }), ServerError, 'exceeds block gas limit: have 30000001, want at most 30000000'));
  it('error: fee cap below the base fee', () => expectRefused(tx({ maxFeePerGas: 1n, maxPriorityFeePerGas: 1n }), ServerError, /^max fee per gas less than block base fee: address 0x.*, maxFeePerGas: 1, baseFee: \d+$/));
  it('error: wrong chain id', () => {
    const raw = createTx({ ...FEES, nonce: 1n, gasLimit: 21_000n, to: temp.chain.accounts[2]!.address, chainId: 1n }, { common: createChainCommon(1n, 'prague') })
      .sign(temp.chain.accounts[0]!.privateKey)
      .serialize();
    return expectRefused(raw, ServerError, 'invalid chain id for signer: have 1 want 31337');
  });
  it('error: already known', async () => {
    const raw = tx();
    await temp.chain.sendRawTransaction(raw);
    await expectRefused(raw, ServerError, 'already known');
  });
  it('error: a signature with a high s value', async () => {
    const fields = RLP.decode(tx().subarray(1)) as Uint8Array[];
    const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
    fields[11] = bigIntToUnpaddedBytes(n - 1n);
    await expectRefused(new Uint8Array([2, ...RLP.encode(fields)]), ServerError, /^invalid transaction signature/);
  });
  it('error: a signature that recovers a different, unfunded sender', async () => {
    const fields = RLP.decode(tx().subarray(1)) as Uint8Array[];
    fields[10] = bigIntToUnpaddedBytes(12345n);
    const attempt = temp.chain.sendRawTransaction(new Uint8Array([2, ...RLP.encode(fields)]));
    await expect(attempt).rejects.toThrow(/^(invalid sender|insufficient funds|nonce too)/);
  });
  it('error: unsupported type and malformed bytes', async () => {
    await expectRefused(new Uint8Array([3, 0xc0]), ServerError, 'transaction type not supported: 3');
    await expectRefused(hexToBytes('0x02f86b827a6901'), InvalidParamsError, /^invalid transaction/);
    await expectRefused(new Uint8Array(), InvalidParamsError, 'invalid transaction: empty bytes');
  });
  it('error: a sender with contract code', async () => {
    await temp.chain.setCode(temp.chain.accounts[3]!.address.bytes, hexToBytes('0x6000'));
    await expectRefused(tx({ nonce: 0n }, 3), ServerError, /^sender not an eoa: address 0x90f79bf6eb2c4f870365e785982e1f101e93b906/);
  });
  it('behavior: admission sees setter changes to an account the last block wrote (nonce, then balance)', async () => {
    await temp.chain.setNonce(temp.chain.accounts[0]!.address.bytes, 7n);
    await expectRefused(tx({ nonce: 1n }), ServerError, 'nonce too low: next nonce 7, tx nonce 1');
    await temp.chain.sendRawTransaction(tx({ nonce: 7n }));
    await temp.chain.setBalance(temp.chain.accounts[0]!.address.bytes, 0n);
    await expectRefused(tx({ nonce: 8n }), ServerError, /^insufficient funds for gas \* price \+ value: address 0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266 have 0 want/);
  });
  it('default: a valid transaction is mined into its own block', async () => {
    const hash = await temp.chain.sendRawTransaction(tx());
    const found = await temp.chain.getTransaction(hash);
    expect(found?.block.header.number).toBe(2n);
    expect(new Address(found!.tx.getSenderAddress().bytes).toString()).toBe(temp.chain.accounts[0]!.address.toString());
  });
});
