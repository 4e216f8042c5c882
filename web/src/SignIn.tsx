// Sign-in page: the auth token (from the start-up banner) in a POST body; the server answers with
// an HttpOnly session cookie and the CSRF token. The token never goes into a URL.
import { useState } from 'preact/hooks';
import { ApiError, post } from './api';

export function SignIn({ message, onSignedIn }: { message?: string; onSignedIn(csrf: string): void }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const r = await post<{ data: { csrf_token: string } }>('/session', { token: token.trim() });
      onSignedIn(r.data.csrf_token);
    } catch (err) {
      setError(err instanceof ApiError && err.status === 401 ? 'Wrong auth token. Use the token printed by tracehook start (X-Service-Token).' : (err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="signin">
      <h1>Tracehook</h1>
      <form class="card" onSubmit={submit} aria-describedby="signin-help">
        {message && <p class="notice" role="status">{message}</p>}
        <label for="token">Auth token</label>
        <input id="token" name="token" type="password" autocomplete="current-password" class="mono" value={token} onInput={(e) => setToken(e.currentTarget.value)} required aria-invalid={!!error} aria-describedby="token-error" />
        <p id="signin-help" class="hint">
          The token <code>tracehook start</code> printed (after <code>X-Service-Token:</code>), also in <code>&lt;data-dir&gt;/secrets.json</code>.
        </p>
        {error && (
          <p id="token-error" class="error" role="alert">
            {error}
          </p>
        )}
        <button class="primary" type="submit" disabled={busy || !token}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
