// Messages between the Custom query runner (main thread) and its worker: plain data only. The block
// (and the ancestors a query may reach through `parent`) is sent once, then one `run` per webhook.
import type { BlockData } from '../extract/blockData.js';

export type QueryWorkerRequest =
  | { kind: 'block'; block: BlockData; ancestors: BlockData[] }
  | { kind: 'run'; id: number; query: string; variables: Record<string, unknown>; maxResultBytes: number };

export type QueryWorkerReply =
  | { kind: 'ready' }
  /** The block message was received and indexed (its transfer does not count against a query's time). */
  | { kind: 'blockReady'; hash: string }
  /** `json`: the serialized `data` (at most `maxResultBytes`), null when execution failed outright. */
  | { kind: 'result'; id: number; json: string | null; errors: string[]; empty: boolean }
  /** The result passed `maxResultBytes`; `bytes` when it was measured whole. */
  | { kind: 'tooLarge'; id: number; bytes?: number }
  | { kind: 'failed'; id: number; message: string };
