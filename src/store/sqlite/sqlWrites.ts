// Where a store's write statements go: straight to its connection (the default), or recorded, as
// one encoded message, for another connection to run later in one transaction (the chain's writer
// thread, engine/chain/chainWriter.ts). Stores that take a sink write the same statements either way.
import type { Database, Statement } from 'better-sqlite3';

/** A statement's parameters: what better-sqlite3 binds (blobs as Uint8Array or Buffer). */
export type SqlParam = string | number | bigint | Uint8Array | null;

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

/**
 * Recorded writes, as one message to another thread: the SQL texts they use, and a buffer of
 * [text index u16][parameter count u8] then per parameter a tag byte and its value (a number as
 * float64, a bigint as int64, text and blobs with a u32 length). One buffer, transferred, costs a
 * fraction of a structured clone of the statements and their dozens of small blobs.
 */
export interface EncodedWrites {
  sqls: string[];
  bytes: ArrayBuffer;
  byteLength: number;
}

/** Writes kept in order, for a connection elsewhere to run ({@link decodeWrites}). */
export interface RecordedWrites extends SqlWrites {
  /** Number of writes recorded. */
  count(): number;
  /** The writes as one message; the recorder takes no more writes after it. */
  encoded(): EncodedWrites;
}

const TAG_NULL = 0;
const TAG_NUMBER = 1;
const TAG_BIGINT = 2;
const TAG_TEXT = 3;
const TAG_BLOB = 4;

export function recordWrites(): RecordedWrites {
  const sqls: string[] = [];
  const sqlIndex = new Map<string, number>();
  let bytes = new Uint8Array(4096);
  let view = new DataView(bytes.buffer);
  let offset = 0;
  let writes = 0;

  function room(needed: number): void {
    if (offset + needed <= bytes.byteLength) return;
    let size = bytes.byteLength * 2;
    while (offset + needed > size) size *= 2;
    const grown = new Uint8Array(size);
    grown.set(bytes.subarray(0, offset));
    bytes = grown;
    view = new DataView(bytes.buffer);
  }

  return {
    run(sql, ...params) {
      let index = sqlIndex.get(sql);
      if (index === undefined) {
        index = sqls.push(sql) - 1;
        sqlIndex.set(sql, index);
      }
      room(3);
      view.setUint16(offset, index, true);
      view.setUint8(offset + 2, params.length);
      offset += 3;
      for (const param of params) {
        if (param === null) {
          room(1);
          bytes[offset++] = TAG_NULL;
        } else if (typeof param === 'number') {
          room(9);
          bytes[offset] = TAG_NUMBER;
          view.setFloat64(offset + 1, param, true);
          offset += 9;
        } else if (typeof param === 'bigint') {
          room(9);
          bytes[offset] = TAG_BIGINT;
          view.setBigInt64(offset + 1, param, true);
          offset += 9;
        } else {
          const blob = typeof param === 'string' ? Buffer.from(param, 'utf8') : param;
          room(5 + blob.byteLength);
          bytes[offset] = typeof param === 'string' ? TAG_TEXT : TAG_BLOB;
          view.setUint32(offset + 1, blob.byteLength, true);
          bytes.set(blob, offset + 5);
          offset += 5 + blob.byteLength;
        }
      }
      writes++;
    },
    count: () => writes,
    encoded: () => ({ sqls, bytes: bytes.buffer, byteLength: offset }),
  };
}

/**
 * Runs each write of `encoded` through `run`, in order (blobs as Buffers over the message's bytes).
 * Self-contained, with its tags inline: its source text is also the writer thread's decoder
 * (engine/chain/chainWriter.ts), so the format is written down once, here.
 */
export function decodeWrites(encoded: EncodedWrites, run: (sql: string, params: (string | number | bigint | Buffer | null)[]) => void): void {
  const view = new DataView(encoded.bytes, 0, encoded.byteLength);
  const all = Buffer.from(encoded.bytes, 0, encoded.byteLength);
  let offset = 0;
  while (offset < encoded.byteLength) {
    const sql = encoded.sqls[view.getUint16(offset, true)]!;
    const count = view.getUint8(offset + 2);
    offset += 3;
    const params: (string | number | bigint | Buffer | null)[] = [];
    for (let i = 0; i < count; i++) {
      const tag = view.getUint8(offset);
      if (tag === 0) {
        params.push(null);
        offset += 1;
      } else if (tag === 1) {
        params.push(view.getFloat64(offset + 1, true));
        offset += 9;
      } else if (tag === 2) {
        params.push(view.getBigInt64(offset + 1, true));
        offset += 9;
      } else {
        const length = view.getUint32(offset + 1, true);
        const value = all.subarray(offset + 5, offset + 5 + length);
        params.push(tag === 3 ? value.toString('utf8') : value);
        offset += 5 + length;
      }
    }
    run(sql, params);
  }
}
