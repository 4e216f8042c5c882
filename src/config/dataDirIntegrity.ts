// Start-up checks that the data dir's stores still belong together: the service store must not have
// vanished from under a chain that has blocks, and the follower's last block must still be in the
// chain. Either loss refuses the start (naming the file and the way out) unless the operator accepts it.
import { ConfigError } from './loadConfig.js';

/** A start refused because part of the data dir's state is gone. */
export class DataLossError extends ConfigError {
  override name = 'DataLossError';
}

const ACCEPT = 'or start with --accept-data-loss (TRACEHOOK_ACCEPT_DATA_LOSS=true)';

export interface ServiceStoreCheck {
  /** Path of service.sqlite; null when the service store is PostgreSQL. */
  serviceFile: string | null;
  /** Whether service.sqlite existed before this start opened anything. */
  serviceFileExisted: boolean;
  /** Whether secrets.json existed before this start (a previous start ran on this data dir). */
  secretsExisted: boolean;
  /** Head of the embedded chain as opened. */
  chainHead: bigint;
  acceptDataLoss: boolean;
}

/**
 * Throws DataLossError when service.sqlite is missing although an earlier start left credentials
 * and a chain with blocks: its webhooks, deliveries and API keys are gone. Returns a warning to log
 * when the loss is accepted, else null.
 */
export function checkServiceStore(check: ServiceStoreCheck): string | null {
  if (check.serviceFile === null || check.serviceFileExisted || !check.secretsExisted || check.chainHead <= 0n) return null;
  const message =
    `${check.serviceFile} is missing, but this data dir holds secrets.json and a chain of ${check.chainHead} blocks from an earlier start: ` +
    'the webhooks, their pending deliveries and the API keys it held are gone. Restore it (with its -wal file) from a backup, ' +
    `${ACCEPT} to begin with an empty service store`;
  if (!check.acceptDataLoss) throw new DataLossError(message);
  return `accepted data loss: ${message}`;
}

export interface FollowerCursorCheck {
  /** The follower's stored cursor for the embedded chain, or null before its first start. */
  cursor: { number: bigint; hash: string } | null;
  /** Whether the chain holds the cursor's block (by hash). */
  chainHasCursorBlock: boolean;
  chainFile: string;
  chainHead: bigint;
  acceptDataLoss: boolean;
}

/**
 * Throws DataLossError when the follower's last processed block is not in the chain (chain.sqlite
 * deleted, replaced, or rolled back by a lost -wal file). Returns a warning when accepted, else null.
 */
export function checkFollowerCursor(check: FollowerCursorCheck): string | null {
  if (!check.cursor || check.cursor.number < 0n || check.chainHasCursorBlock) return null;
  const message =
    `the service store's webhook follower last processed block ${check.cursor.number} (${check.cursor.hash}), which ${check.chainFile} ` +
    `does not hold (its head is block ${check.chainHead}): the chain file was deleted, replaced or rolled back (a lost -wal file). ` +
    `Restore it (with its -wal file) from a backup, ${ACCEPT}: the follower then treats the missing blocks as a reorg ` +
    'and sends removal notifications for what it delivered from them';
  if (!check.acceptDataLoss) throw new DataLossError(message);
  return `accepted data loss: ${message}`;
}
