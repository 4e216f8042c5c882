// Compares secrets (auth tokens, signatures) without leaking where they differ through timing.
import { createHash, timingSafeEqual } from 'node:crypto';

/** True when both strings are equal; time depends on neither content nor the position of a difference. */
export function constantTimeEqual(a: string, b: string): boolean {
  // Hashing first makes the lengths equal, so the length of the secret does not leak either.
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb);
}
