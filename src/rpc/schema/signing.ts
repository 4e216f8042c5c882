// Runtime schemas of the methods that sign with the node's accounts: eth_sign, personal_sign,
// eth_signTypedData_v4 and eth_signTransaction.
import { z } from 'zod';
import { defineMethod, param } from './defineMethod.js';
import { TransactionRequestObject } from './eth.js';
import { Address, Data } from './primitives.js';

/** Most bytes of typed data accepted (as JSON text), so a huge document cannot tie up the thread. */
export const MAX_TYPED_DATA_BYTES = 256 * 1024;

/** EIP-712 typed data: the object, or its JSON text (MetaMask and anvil take both). */
export const TypedDataParam = z
  .union([z.string(), z.record(z.string(), z.unknown())], { error: 'expected EIP-712 typed data (an object or its JSON text)' })
  .transform((value, ctx) => {
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    if (text.length > MAX_TYPED_DATA_BYTES) {
      ctx.addIssue({ code: 'custom', message: `typed data over ${MAX_TYPED_DATA_BYTES} bytes` });
      return z.NEVER;
    }
    if (typeof value !== 'string') return value;
    try {
      const parsed: unknown = JSON.parse(value);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
    } catch {
      // reported below
    }
    ctx.addIssue({ code: 'custom', message: 'typed data text is not a JSON object' });
    return z.NEVER;
  });

export const signingSchema = {
  eth_sign: defineMethod(param('address', Address), param('message', Data)),
  personal_sign: defineMethod(param('message', Data), param('address', Address)),
  eth_signTypedData_v4: defineMethod(param('address', Address), param('typedData', TypedDataParam)),
  eth_signTransaction: defineMethod(param('transaction', TransactionRequestObject)),
} as const;
