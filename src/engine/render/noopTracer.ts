// geth's `noopTracer`: runs the transaction and returns an empty object.
import type { ExecutionRecord } from '../record/types.js';

/** Always `{}`; the execution still happened (errors such as a timeout still surface). */
export function renderNoopTracer(_record: ExecutionRecord): Record<string, never> {
  return {};
}
