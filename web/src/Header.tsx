// The header: navigation, the auth token (masked; reveal and copy fetch it from the API), every
// network with its head block and, for networks with upstreams, their health; polled every 3 s.
import { useState } from 'preact/hooks';
import { api, get } from './api';
import { CopyButton } from './CopyButton';
import { usePoll } from './usePoll';
import type { NetworkHead, UpstreamNetwork } from './types';

const fetchToken = async () => (await get<{ data: { auth_token: string } }>('/auth-token')).data.auth_token;

function AuthToken() {
  const [token, setToken] = useState<string>();
  return (
    <div class="token">
      <span class="hint">Auth token</span>
      <code aria-label={token ? 'auth token' : 'auth token, hidden'} data-testid="auth-token">
        {token ?? '••••••••••••'}
      </code>
      <button type="button" onClick={async () => setToken(token ? undefined : await fetchToken())} aria-pressed={!!token}>
        {token ? 'Hide' : 'Reveal'}
      </button>
      <CopyButton text={fetchToken} />
    </div>
  );
}

function Networks() {
  const heads = usePoll(() => get<{ data: NetworkHead[] }>('/networks').then((r) => r.data), 3000);
  const upstreams = usePoll(() => get<{ data: UpstreamNetwork[] }>('/upstreams').then((r) => r.data), 10000);
  if (heads.error) return <span class="bad" role="status">Networks: {heads.error}</span>;
  return (
    <div class="networks" aria-label="Networks" role="list">
      {(heads.data ?? []).map((n) => {
        const up = upstreams.data?.find((u) => u.network === n.network);
        const healthy = up ? up.upstreams.filter((u) => u.state === 'healthy').length : undefined;
        return (
          <span class="net" role="listitem" key={n.network} data-testid={`network-${n.network}`}>
            <span class={`dot ${n.error ? 'bad' : up && healthy === 0 ? 'bad' : up && healthy! < up.upstreams.length ? 'warn' : ''}`} aria-hidden="true" />
            {n.network} · block <strong>{n.head_block ? BigInt(n.head_block).toString() : '—'}</strong>
            {up && (
              <span title={up.upstreams.map((u) => `${u.label}: ${u.state}${u.last_error ? ` (${u.last_error})` : ''}`).join('\n')}>
                {' '}
                · upstreams {healthy}/{up.upstreams.length} healthy
              </span>
            )}
            {n.error && <span class="hint"> ({n.error})</span>}
          </span>
        );
      })}
    </div>
  );
}

export function Header({ hash, onSignedOut }: { hash: string; onSignedOut(): void }) {
  const link = (href: string, text: string) => (
    <a href={href} aria-current={hash.startsWith(href) ? 'page' : undefined}>
      {text}
    </a>
  );
  return (
    <header class="top">
      <a class="brand" href="#/webhooks">
        Tracehook
      </a>
      <nav aria-label="Main">
        {link('#/webhooks', 'Webhooks')}
        {link('#/keys', 'API keys')}
        {link('#/trace', 'Trace explorer')}
      </nav>
      <Networks />
      <AuthToken />
      <button type="button" onClick={async () => (await api('DELETE', '/session').catch(() => undefined), onSignedOut())}>
        Sign out
      </button>
    </header>
  );
}
