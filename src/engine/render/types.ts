// Shared shapes for renderers: where the rendered transaction sits in its block. Renderers are
// pure functions of (ExecutionRecord, options, RenderContext).
import type { Hex } from '../../rpc/hex.js';

export interface RenderContext {
  /** Block-level index of the transaction's first log (geth's log `index` counts from the block). */
  logIndexOffset: number;
  /** Set for mined transactions: Parity entries carry these locators. */
  location?: TxLocation;
}

export interface TxLocation {
  blockHash: Hex;
  blockNumber: bigint;
  transactionHash: Hex;
  transactionPosition: number;
}

/** A JSON value as renderers produce it. */
export type Json = string | number | boolean | null | Json[] | { [key: string]: Json | undefined };

export const NO_CONTEXT: RenderContext = { logIndexOffset: 0 };
