// Lookups the chain follower runs (inside its own transaction if it likes) to decide which webhooks
// an extracted event belongs to. Only webhooks with is_active = 1 receive new events.
import type { SqlExecutor } from '../../store/sql.js';
import { WEBHOOK_COLUMNS, rowToWebhook } from './webhookRepository.js';
import type { WebhookRecord, WebhookType } from './webhookTypes.js';

const CHUNK = 400;

/** Active webhooks of one network, optionally of one type, oldest first. */
export async function findActiveWebhooks(ex: SqlExecutor, network: string, type?: WebhookType): Promise<WebhookRecord[]> {
  const rows = type
    ? await ex.query(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE network = $1 AND is_active = 1 AND type = $2 ORDER BY created_at, id`, [network, type])
    : await ex.query(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE network = $1 AND is_active = 1 ORDER BY created_at, id`, [network]);
  return rows.map((r) => rowToWebhook(r as Parameters<typeof rowToWebhook>[0]));
}

/** Pairs of (active ADDRESS_ACTIVITY webhook of `network`, tracked address) among `addresses` (any case). */
export async function findAddressSubscribers(
  ex: SqlExecutor,
  network: string,
  addresses: readonly string[],
): Promise<Array<{ webhookId: string; address: string }>> {
  const wanted = [...new Set(addresses.map((a) => a.toLowerCase()))];
  const out: Array<{ webhookId: string; address: string }> = [];
  for (let i = 0; i < wanted.length; i += CHUNK) {
    const chunk = wanted.slice(i, i + CHUNK);
    const rows = await ex.query<{ webhook_id: string; address: string }>(
      `SELECT a.webhook_id, a.address FROM webhook_addresses a JOIN webhooks w ON w.id = a.webhook_id
       WHERE w.network = $1 AND w.is_active = 1 AND w.type = 'ADDRESS_ACTIVITY'
         AND a.address IN (${chunk.map((_, j) => `$${j + 2}`).join(', ')})
       ORDER BY a.webhook_id, a.address`,
      [network, ...chunk],
    );
    for (const r of rows) out.push({ webhookId: r.webhook_id, address: r.address });
  }
  return out;
}

/** NFT filters of active NFT_ACTIVITY webhooks of `network` on any of `contracts`; tokenId null = whole contract. */
export async function findNftSubscribers(
  ex: SqlExecutor,
  network: string,
  contracts: readonly string[],
): Promise<Array<{ webhookId: string; contractAddress: string; tokenId: string | null }>> {
  const wanted = [...new Set(contracts.map((a) => a.toLowerCase()))];
  const out: Array<{ webhookId: string; contractAddress: string; tokenId: string | null }> = [];
  for (let i = 0; i < wanted.length; i += CHUNK) {
    const chunk = wanted.slice(i, i + CHUNK);
    const rows = await ex.query<{ webhook_id: string; contract_address: string; token_id: string }>(
      `SELECT f.webhook_id, f.contract_address, f.token_id FROM webhook_nft_filters f JOIN webhooks w ON w.id = f.webhook_id
       WHERE w.network = $1 AND w.is_active = 1 AND w.type = 'NFT_ACTIVITY'
         AND f.contract_address IN (${chunk.map((_, j) => `$${j + 2}`).join(', ')})
       ORDER BY f.webhook_id, f.contract_address, f.token_id`,
      [network, ...chunk],
    );
    for (const r of rows) out.push({ webhookId: r.webhook_id, contractAddress: r.contract_address, tokenId: r.token_id === '' ? null : r.token_id });
  }
  return out;
}
