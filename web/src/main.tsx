// The dashboard's entry: session state (sign-in page until the server says the cookie is good),
// the header and the hash router over the pages. Hash routes keep every page at `/`, so the
// server serves one document.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, get, setCsrfToken, whenSignedOut } from './api';
import { Header } from './Header';
import { SignIn } from './SignIn';
import { WebhooksPage } from './WebhooksPage';
import { WebhookCreate } from './WebhookCreate';
import { WebhookDetail } from './WebhookDetail';
import { KeysPage } from './KeysPage';
import { TracePage } from './TracePage';
import './styles.css';

type SessionState = { state: 'loading' } | { state: 'out'; message?: string } | { state: 'in' };

function useHash(): string {
  const [hash, setHash] = useState(location.hash || '#/webhooks');
  useEffect(() => {
    const on = () => setHash(location.hash || '#/webhooks');
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return hash;
}

function Page({ hash }: { hash: string }) {
  const path = hash.slice(1);
  const webhook = /^\/webhooks\/([^/]+)$/.exec(path);
  if (path === '/webhooks/new') return <WebhookCreate />;
  // Keyed by id: going from one webhook to another starts its forms and log afresh instead of
  // keeping the previous webhook's URL, name and notices in the fields.
  if (webhook) return <WebhookDetail key={webhook[1]} id={decodeURIComponent(webhook[1]!)} />;
  if (path === '/keys') return <KeysPage />;
  if (path.startsWith('/trace')) return <TracePage />;
  return <WebhooksPage />;
}

function App() {
  const [session, setSession] = useState<SessionState>({ state: 'loading' });
  const hash = useHash();
  useEffect(() => {
    whenSignedOut((message) => setSession({ state: 'out', message }));
    get<{ data: { csrf_token: string } }>('/session')
      .then((r) => {
        setCsrfToken(r.data.csrf_token);
        setSession({ state: 'in' });
      })
      .catch((e: unknown) => setSession({ state: 'out', message: e instanceof ApiError && /expired/i.test(e.message) ? e.message : undefined }));
  }, []);
  useEffect(() => {
    const title = hash.startsWith('#/keys') ? 'API keys' : hash.startsWith('#/trace') ? 'Trace explorer' : 'Webhooks';
    document.title = `${title} · Tracehook`;
  }, [hash]);
  if (session.state === 'loading') return <main aria-busy="true">Loading…</main>;
  if (session.state === 'out')
    return (
      <SignIn
        message={session.message}
        onSignedIn={(csrf) => {
          setCsrfToken(csrf);
          setSession({ state: 'in' });
        }}
      />
    );
  return (
    <>
      <Header hash={hash} onSignedOut={() => setSession({ state: 'out', message: 'Signed out.' })} />
      <main>
        <Page hash={hash} />
      </main>
    </>
  );
}

render(<App />, document.getElementById('app')!);
