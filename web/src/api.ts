// The dashboard's one way to the server: the management API under /api, same origin, with the
// session cookie (sent by the browser, never readable here) and the session's CSRF token on every
// change. Errors carry the API's `{message, field?}` so forms can show them where they belong.

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly field?: string,
  ) {
    super(message);
  }
}

let csrfToken = '';
let onSignedOut: (message: string) => void = () => undefined;

export function setCsrfToken(token: string): void {
  csrfToken = token;
}

/** Called when the server says the session is gone (expired, signed out elsewhere, restarted). */
export function whenSignedOut(handler: (message: string) => void): void {
  onSignedOut = handler;
}

export async function api<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (method !== 'GET') headers['X-CSRF-Token'] = csrfToken;
  let res: Response;
  try {
    res = await fetch(`/api${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'same-origin' });
  } catch {
    throw new ApiError('The service did not answer: is it running?', 0);
  }
  const text = await res.text();
  let json: unknown = undefined;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON: the message below says so */
  }
  if (!res.ok) {
    const err = (json ?? {}) as { message?: string; field?: string };
    const error = new ApiError(err.message ?? `HTTP ${res.status}`, res.status, err.field);
    if (res.status === 401 && path !== '/session') onSignedOut(error.message);
    throw error;
  }
  return json as T;
}

export const get = <T,>(path: string) => api<T>('GET', path);
export const post = <T,>(path: string, body: unknown = {}) => api<T>('POST', path, body);

/** `?a=1&b=2` from the defined entries. */
export function query(params: Record<string, string | number | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}
