// The journal of acknowledged transactions (`<dataDir>/chain.journal`): in automine mode a
// transaction is answered once it has run in its block and its raw bytes are here, while the block
// is sealed and the chain's writer thread writes it (chainCore.ts). A restart mines again whatever the
// journal holds that no written block does, so a crash loses no acknowledged transaction.
//
// The file is written in place over space claimed when it is created (a full disk cannot refuse an
// append), like the SQLite WAL without fsync: an append survives the process being killed, not the
// machine losing power (the chain's `synchronous = NORMAL` makes the same promise). Layout: an
// 8-byte header (magic, epoch), then records [length u32][epoch u32][crc32 u32][raw bytes]. Emptying
// the journal writes a new epoch into the header; records of older epochs are ignored, so nothing is
// erased, and reading stops at the first record that is torn, stale or absent.
import { closeSync, existsSync, openSync, readSync, statSync, writeSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import { PRIVATE_FILE_MODE } from '../../store/sqlite/privateDatabaseFile.js';

/** Space claimed for records: about 7,000 transfers at 150 bytes; a fuller journal is not used. */
export const JOURNAL_BYTES = 1024 * 1024;

const MAGIC = 0x4a485431; // "THJ1"
const HEADER_BYTES = 8;
const RECORD_HEAD_BYTES = 12;

export interface TxJournal {
  /**
   * Appends `raw`; false when it does not fit (the caller then answers once the block is written,
   * and the journal is emptied when nothing is being written).
   */
  append(raw: Uint8Array): boolean;
  /** The records appended since the journal was last emptied, in order. */
  entries(): Uint8Array[];
  /** Whether any record was appended since the journal was last emptied. */
  isEmpty(): boolean;
  /** Empties the journal (every record it held is in a written block, or was dropped). */
  clear(): void;
  close(): void;
}

/**
 * No journal: nothing is appended, so every send waits for its block's write (when the journal's
 * space could not be claimed at start, on a full disk).
 */
export const NO_JOURNAL: TxJournal = {
  append: () => false,
  entries: () => [],
  isEmpty: () => true,
  clear() {},
  close() {},
};

/** Opens (or creates, claiming its space) the journal at `file`; throws when the space cannot be claimed. */
export function openTxJournal(file: string, capacityBytes = JOURNAL_BYTES): TxJournal {
  const limit = HEADER_BYTES + capacityBytes;
  if (!existsSync(file) || statSync(file).size < limit) claimSpace(file, limit);
  const handle = openSync(file, 'r+');
  const head = Buffer.alloc(HEADER_BYTES);
  readSync(handle, head, 0, HEADER_BYTES, 0);
  let epoch = head.readUInt32LE(0) === MAGIC ? head.readUInt32LE(4) : 0;

  function readEntries(): { entries: Uint8Array[]; end: number } {
    const entries: Uint8Array[] = [];
    let offset = HEADER_BYTES;
    const recordHead = Buffer.alloc(RECORD_HEAD_BYTES);
    while (offset + RECORD_HEAD_BYTES <= limit) {
      readSync(handle, recordHead, 0, RECORD_HEAD_BYTES, offset);
      const length = recordHead.readUInt32LE(0);
      if (length === 0 || recordHead.readUInt32LE(4) !== epoch || offset + RECORD_HEAD_BYTES + length > limit) break;
      const raw = Buffer.alloc(length);
      readSync(handle, raw, 0, length, offset + RECORD_HEAD_BYTES);
      if (recordHead.readUInt32LE(8) !== checksum(epoch, raw)) break;
      entries.push(new Uint8Array(raw.buffer, raw.byteOffset, raw.byteLength));
      offset += RECORD_HEAD_BYTES + length;
    }
    return { entries, end: offset };
  }

  let end = readEntries().end;
  let closed = false;
  return {
    append(raw) {
      if (end + RECORD_HEAD_BYTES + raw.byteLength > limit) return false;
      const record = Buffer.alloc(RECORD_HEAD_BYTES + raw.byteLength);
      record.writeUInt32LE(raw.byteLength, 0);
      record.writeUInt32LE(epoch, 4);
      record.writeUInt32LE(checksum(epoch, raw), 8);
      record.set(raw, RECORD_HEAD_BYTES);
      writeSync(handle, record, 0, record.byteLength, end);
      end += record.byteLength;
      return true;
    },
    entries: () => readEntries().entries,
    isEmpty: () => end === HEADER_BYTES,
    clear() {
      if (end === HEADER_BYTES) return;
      epoch = (epoch + 1) >>> 0 || 1;
      writeSync(handle, header(epoch), 0, HEADER_BYTES, 0);
      end = HEADER_BYTES;
    },
    close() {
      if (closed) return;
      closed = true;
      closeSync(handle);
    },
  };
}

/** Writes the file as zeros (not a sparse file: appends then overwrite space the disk has given) with an empty journal. */
function claimSpace(file: string, bytes: number): void {
  const fd = openSync(file, 'w', PRIVATE_FILE_MODE);
  try {
    writeSync(fd, Buffer.alloc(bytes), 0, bytes, 0);
    writeSync(fd, header(1), 0, HEADER_BYTES, 0);
  } finally {
    closeSync(fd);
  }
}

function header(epoch: number): Buffer {
  const bytes = Buffer.alloc(HEADER_BYTES);
  bytes.writeUInt32LE(MAGIC, 0);
  bytes.writeUInt32LE(epoch, 4);
  return bytes;
}

/** The record's checksum covers its epoch too, so a stale record never passes for a current one. */
function checksum(epoch: number, raw: Uint8Array): number {
  const epochBytes = Buffer.alloc(4);
  epochBytes.writeUInt32LE(epoch, 0);
  return crc32(raw, crc32(epochBytes));
}
