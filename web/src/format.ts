// Small display helpers shared by the pages.

export const TYPE_LABELS: Record<string, string> = { ADDRESS_ACTIVITY: 'Address Activity', NFT_ACTIVITY: 'NFT Activity', GRAPHQL: 'Custom (GraphQL)' };

export function timeAgo(iso: string | number | null | undefined): string {
  if (iso === null || iso === undefined) return '—';
  const ms = Date.now() - (typeof iso === 'number' ? iso : Date.parse(iso));
  if (ms < 60_000) return `${Math.max(0, Math.round(ms / 1000))} s ago`;
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)} min ago`;
  if (ms < 86_400_000) return `${Math.round(ms / 3_600_000)} h ago`;
  return new Date(iso).toLocaleString();
}

export function statusClass(status: string | null | undefined): string {
  return status === 'succeeded' ? 'ok' : status === 'failed' ? 'bad' : 'warn';
}

/** Offers `text` as a file download (no server round trip). */
export function download(name: string, text: string, type = 'application/json'): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
