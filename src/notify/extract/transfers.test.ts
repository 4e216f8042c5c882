import { describe, it, expect } from 'vitest';
import { parseEther } from 'viem';
import { extractTransfers, logToTransfer, TRANSFER_BATCH_TOPIC, type Transfer } from './transfers.js';
import { blockDataProblem } from './blockData.js';
import { loadActivityFixture, scenarioBlock } from './testing/activityFixture.js';

const fixture = loadActivityFixture();
const { a, b, c, d } = fixture.accounts;
const { token, nft, multi, router1, router2 } = fixture.contracts;

function summary(transfers: Transfer[]) {
  return transfers.map((t) => {
    const base = { category: t.category, from: t.from, to: t.to, txIndex: t.txIndex };
    switch (t.category) {
      case 'external':
      case 'internal':
        return { ...base, rawValue: t.rawValue, typeTraceAddress: t.typeTraceAddress };
      case 'token':
        return { ...base, contract: t.contract, rawValue: t.rawValue };
      case 'erc721':
        return { ...base, contract: t.contract, tokenId: t.tokenId };
      case 'erc1155':
        return { ...base, contract: t.contract, operator: t.operator, items: t.items };
    }
  });
}

describe('extractTransfers', () => {
  it('default: every recorded block is consistent (counts and hashes line up)', () => {
    for (const block of [...fixture.canonical, ...fixture.orphaned]) expect(blockDataProblem(block)).toBeNull();
  });

  it('behavior: a top-level ETH transfer is one external transfer with its tx hash', () => {
    const block = scenarioBlock(fixture, 'ethExternal');
    const transfers = extractTransfers(block);
    expect(summary(transfers)).toEqual([{ category: 'external', from: a, to: b, txIndex: 0, rawValue: parseEther('1.5'), typeTraceAddress: null }]);
    expect(transfers[0]!.txHash).toBe(block.transactions[0]!.hash);
  });

  it('behavior: ERC-20 mint, transfer and burn are token transfers with zero-address ends', () => {
    const zero = '0x0000000000000000000000000000000000000000';
    expect(summary(extractTransfers(scenarioBlock(fixture, 'erc20')))).toEqual([
      { category: 'token', from: zero, to: a, txIndex: 0, contract: token, rawValue: 5_000_000n },
      { category: 'token', from: a, to: b, txIndex: 1, contract: token, rawValue: 1_234_567n },
      { category: 'token', from: a, to: zero, txIndex: 2, contract: token, rawValue: 500_000n },
    ]);
  });

  it('behavior: ETH sent by a contract shows as internal transfers with call_N paths', () => {
    expect(summary(extractTransfers(scenarioBlock(fixture, 'split')))).toEqual([
      { category: 'external', from: a, to: router1, txIndex: 0, rawValue: parseEther('3'), typeTraceAddress: null },
      { category: 'internal', from: router1, to: b, txIndex: 0, rawValue: parseEther('1'), typeTraceAddress: 'call_0' },
      { category: 'internal', from: router1, to: c, txIndex: 0, rawValue: parseEther('2'), typeTraceAddress: 'call_1' },
    ]);
  });

  it('behavior: nested frames give nested paths (call_0_0)', () => {
    expect(summary(extractTransfers(scenarioBlock(fixture, 'hop')))).toEqual([
      { category: 'external', from: a, to: router1, txIndex: 0, rawValue: parseEther('0.25'), typeTraceAddress: null },
      { category: 'internal', from: router1, to: router2, txIndex: 0, rawValue: parseEther('0.25'), typeTraceAddress: 'call_0' },
      { category: 'internal', from: router2, to: c, txIndex: 0, rawValue: parseEther('0.25'), typeTraceAddress: 'call_0_0' },
    ]);
  });

  it('behavior: DELEGATECALL value and reverted frames move nothing; CREATE with value does', () => {
    const block = scenarioBlock(fixture, 'delegateFailCreate');
    const created = block.callFrames![2]!.calls![0]!.to;
    expect(summary(extractTransfers(block))).toEqual([
      { category: 'external', from: a, to: router1, txIndex: 0, rawValue: parseEther('0.1'), typeTraceAddress: null },
      // The DELEGATECALL frame (delegatecall_0) reports msg.value but moves nothing; the CALL inside it does.
      { category: 'internal', from: router1, to: b, txIndex: 0, rawValue: parseEther('0.1'), typeTraceAddress: 'call_0_0' },
      // sendThenFail: the inner send sits under a reverted frame, so only the external part remains.
      { category: 'external', from: a, to: router1, txIndex: 1, rawValue: parseEther('0.05'), typeTraceAddress: null },
      { category: 'external', from: a, to: router1, txIndex: 2, rawValue: parseEther('0.2'), typeTraceAddress: null },
      { category: 'internal', from: router1, to: created, txIndex: 2, rawValue: parseEther('0.2'), typeTraceAddress: 'create_0' },
    ]);
    expect(created).toMatch(/^0x[0-9a-f]{40}$/);
  });

  it('behavior: ERC-721 mint, transfer, mint and burn carry the token id', () => {
    const zero = '0x0000000000000000000000000000000000000000';
    expect(summary(extractTransfers(scenarioBlock(fixture, 'erc721')))).toEqual([
      { category: 'erc721', from: zero, to: a, txIndex: 0, contract: nft, tokenId: 7n },
      { category: 'erc721', from: a, to: b, txIndex: 1, contract: nft, tokenId: 7n },
      { category: 'erc721', from: zero, to: b, txIndex: 2, contract: nft, tokenId: 8n },
      { category: 'erc721', from: b, to: zero, txIndex: 3, contract: nft, tokenId: 8n },
    ]);
  });

  it('behavior: ERC-1155 single and batch logs list every (id, value) pair', () => {
    const zero = '0x0000000000000000000000000000000000000000';
    expect(summary(extractTransfers(scenarioBlock(fixture, 'erc1155')))).toEqual([
      { category: 'erc1155', from: zero, to: a, txIndex: 0, contract: multi, operator: a, items: [{ tokenId: 1n, value: 10n }] },
      { category: 'erc1155', from: zero, to: a, txIndex: 1, contract: multi, operator: a, items: [{ tokenId: 2n, value: 20n }, { tokenId: 3n, value: 30n }] },
      { category: 'erc1155', from: a, to: b, txIndex: 2, contract: multi, operator: a, items: [{ tokenId: 1n, value: 4n }] },
      { category: 'erc1155', from: a, to: c, txIndex: 3, contract: multi, operator: a, items: [{ tokenId: 2n, value: 5n }, { tokenId: 3n, value: 6n }] },
      { category: 'erc1155', from: a, to: zero, txIndex: 4, contract: multi, operator: a, items: [{ tokenId: 3n, value: 1n }] },
    ]);
  });

  it('behavior: a failed transaction moves no ETH even though it carried value', () => {
    const block = scenarioBlock(fixture, 'failed');
    expect(block.receipts[0]!.status).toBe('0x0');
    expect(BigInt(block.transactions[0]!.value)).toBe(parseEther('1'));
    expect(extractTransfers(block)).toEqual([]);
  });

  it('behavior: without call frames only external and log transfers are found', () => {
    const block = { ...scenarioBlock(fixture, 'split'), callFrames: null };
    expect(extractTransfers(block).map((t) => t.category)).toEqual(['external']);
  });

  it('behavior: the orphaned and the canonical block 10 differ', () => {
    expect(summary(extractTransfers(fixture.orphaned[0]!))).toEqual([
      { category: 'external', from: a, to: d, txIndex: 0, rawValue: parseEther('1'), typeTraceAddress: null },
      { category: 'token', from: a, to: d, txIndex: 1, contract: token, rawValue: 250_000n },
    ]);
    expect(summary(extractTransfers(fixture.canonical[10]!))).toEqual([{ category: 'external', from: a, to: c, txIndex: 0, rawValue: parseEther('2'), typeTraceAddress: null }]);
  });

  it('error: malformed transfer logs are skipped, not thrown', () => {
    const log = scenarioBlock(fixture, 'erc1155').receipts[1]!.logs[0]!;
    expect(log.topics[0]).toBe(TRANSFER_BATCH_TOPIC);
    const hash = '0x01';
    expect(logToTransfer({ ...log, data: `${log.data.slice(0, -64)}` as `0x${string}` }, hash, 0)).toBeUndefined();
    expect(logToTransfer({ ...log, data: '0x1234' }, hash, 0)).toBeUndefined();
    const erc20 = scenarioBlock(fixture, 'erc20').receipts[1]!.logs[0]!;
    expect(logToTransfer({ ...erc20, topics: erc20.topics.slice(0, 2) }, hash, 0)).toBeUndefined();
    expect(logToTransfer({ ...erc20, data: '0x' }, hash, 0)).toBeUndefined();
  });
});
