// Runtime schemas of geth's txpool namespace (status, content, inspect) and the debug_getRaw*
// methods (RLP of headers, blocks, transactions and receipts).
import { defineMethod, param } from './defineMethod.js';
import { BlockNumberOrHash, Hash32 } from './primitives.js';

export const txpoolSchema = {
  txpool_status: defineMethod(),
  txpool_content: defineMethod(),
  txpool_inspect: defineMethod(),
} as const;

export const rawDataSchema = {
  debug_getRawHeader: defineMethod(param('block', BlockNumberOrHash)),
  debug_getRawBlock: defineMethod(param('block', BlockNumberOrHash)),
  debug_getRawReceipts: defineMethod(param('block', BlockNumberOrHash)),
  debug_getRawTransaction: defineMethod(param('hash', Hash32)),
} as const;
