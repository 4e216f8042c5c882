// Where a store's write statements go: straight to its connection (the default), or into a list of
// statements that another connection runs later in one transaction (the chain's writer thread,
// engine/chain/chainWriter.ts). Stores that take a sink write the same statements either way.
import type { Database, Statement } from 'better-sqlite3';

/** A statement's parameters: what better-sqlite3 binds (blobs as Uint8Array or Buffer). */
export type SqlParam = string | number | bigint | Uint8Array | null;

/** One write: its SQL text and parameters. */
export type SqlWrite = readonly [sql: string, params: readonly SqlParam[]];

export interface SqlWrites {
  run(sql: string, ...params: SqlParam[]): void;
}

/** Writes on `db` now (statements prepared once per SQL text); call inside the caller's transaction. */
export function directWrites(db: Database): SqlWrites {
  const prepared = new Map<string, Statement>();
  return {
    run(sql, ...params) {
      let statement = prepared.get(sql);
      if (statement === undefined) {
        statement = db.prepare(sql);
        prepared.set(sql, statement);
      }
      statement.run(...params);
    },
  };
}

/** Writes kept in order, for a connection elsewhere to run; `writes` is what was recorded. */
export interface RecordedWrites extends SqlWrites {
  readonly writes: SqlWrite[];
}

/**
 * Records writes for a message to another thread. A blob that is a view of a larger buffer (a
 * pooled Buffer, a slice of decoded RLP) is copied: a message carries a view's whole buffer.
 */
export function recordWrites(): RecordedWrites {
  const writes: SqlWrite[] = [];
  return {
    writes,
    run(sql, ...params) {
      for (let i = 0; i < params.length; i++) {
        const param = params[i];
        if (param instanceof Uint8Array && (param.byteOffset !== 0 || param.byteLength !== param.buffer.byteLength)) params[i] = new Uint8Array(param); // a copy (Buffer#slice would be a view)
      }
      writes.push([sql, params]);
    },
  };
}
