// Bounds the answer of one batch: each element's text is counted as it finishes; once the batch's
// answer would pass the budget, that element and every later one answer -32005 and the batch's
// remaining work is cancelled, so a batch of near-cap traces cannot multiply the per-trace cap.
import { LimitExceededError } from '../rpc/errors.js';
import { encodeError } from './framing/encodeResponse.js';
import type { JsonRpcId } from './framing/decodeRequest.js';

export interface ResponseBudget {
  /** The element's answer as it may be sent: its own text, or the limit error once the budget is spent. */
  admit(text: string | undefined, id: JsonRpcId, notification: boolean): string | undefined;
}

/**
 * `maxBytes` counts JSON text length (UTF-16 units, the bytes of ASCII JSON). `onExceeded` runs
 * once, when the first element does not fit (e.g. to abort the batch's pending calls).
 */
export function createResponseBudget(maxBytes: number, onExceeded: () => void): ResponseBudget {
  let used = 0;
  let exceeded = false;
  const error = () =>
    new LimitExceededError(`the batch's answer exceeds the limit of ${maxBytes} bytes (--max-response-bytes): send fewer or smaller calls per batch`);
  return {
    admit(text, id, notification) {
      if (text === undefined) return undefined;
      if (!exceeded) {
        used += text.length;
        if (used <= maxBytes) return text;
        exceeded = true;
        onExceeded();
      }
      return notification ? undefined : encodeError(id, error());
    },
  };
}
