// Which tracer and comparison each conformance folder uses, and which folders are out of scope.
import type { GethTracerRequest } from '../../src/engine/render/gethTracers.js';
import type { CompareMode } from './compare.js';

export type FolderRule =
  | { scope: 'in'; kind: 'geth'; tracer: (config: Record<string, unknown>) => GethTracerRequest; compare: CompareMode }
  | { scope: 'in'; kind: 'parityTrace' | 'parityStateDiff'; compare: CompareMode }
  /** Our own fixtures name their tracer in a `tracer` field (fixtures/traces). */
  | { scope: 'in'; kind: 'named'; compare: CompareMode }
  | { scope: 'out'; reason: string };

const callTracer = (config: Record<string, unknown>): GethTracerRequest => ({ tracer: 'callTracer', config });

export const FOLDER_RULES: Record<string, FolderRule> = {
  call_tracer: { scope: 'in', kind: 'geth', tracer: callTracer, compare: 'callTracer' },
  call_tracer_withLog: { scope: 'in', kind: 'geth', tracer: callTracer, compare: 'callTracer' },
  call_tracer_flat: {
    scope: 'in',
    kind: 'geth',
    tracer: (config) => ({ tracer: 'flatCallTracer', config }),
    compare: 'flat',
  },
  prestate_tracer: { scope: 'in', kind: 'geth', tracer: (config) => ({ tracer: 'prestateTracer', config }), compare: 'exact' },
  prestate_tracer_with_diff_mode: {
    scope: 'in',
    kind: 'geth',
    tracer: (config) => ({ tracer: 'prestateTracer', config }),
    compare: 'exact',
  },
  call_tracer_parity: { scope: 'in', kind: 'parityTrace', compare: 'flat' },
  state_diff: { scope: 'in', kind: 'parityStateDiff', compare: 'exact' },
  traces: { scope: 'in', kind: 'named', compare: 'exact' },
  call_tracer_legacy: {
    scope: 'out',
    reason: "output of geth's retired JavaScript callTracer (different error texts and omissions); the same transactions run in call_tracer",
  },
  prestate_tracer_legacy: {
    scope: 'out',
    reason: "output of geth's retired JavaScript prestateTracer; prestate_tracer/simple.json covers the same transaction",
  },
  erc7562_tracer: { scope: 'out', reason: 'ERC-4337 validation tracer, not a tracer this service offers' },
  mainnet: { scope: 'out', reason: 'recorded Erigon replies that need Ethereum mainnet archive state' },
};

/**
 * Fixtures whose expected output encodes a quirk of the client that produced it rather than a rule
 * we follow. Each is reported as a known difference, with the reason, and listed in
 * docs/trace-conventions.md.
 */
export const KNOWN_DIFFERENCES: Record<string, string> = {
  'parity/core-geth/state_diff/internal_oog.json':
    "core-geth's JavaScript stateDiff tracer drops the account it looked up last before any VM error " +
    '(state_diff_tracer.js, `_error` on `lastAccessedAccount`); here that is a contract created earlier in the ' +
    'transaction whose later call ran out of gas. The contract exists after the transaction, so OpenEthereum ' +
    'semantics (and this service) list it as born.',
};
