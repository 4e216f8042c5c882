// SECURITY.md's "constant-time comparisons": every place that compares a secret a client sends (the
// management auth token, the dashboard's CSRF token and sign-in token, webhook signatures in the
// listener SDK) goes through a constant-time comparison, and no source file compares one with
// `===`/`!==`. A static check over src/, so a new comparison written the quick way fails here.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const src = fileURLToPath(new URL('..', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'testing' ? [] : sources(p);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [p] : [];
  });
}

/** A secret-named operand on either side of a strict (in)equality, e.g. `x === options.authToken`. */
const PLAIN_COMPARISON = /[!=]==\s*[\w.?]*\b(authToken|csrfToken|signingKey|secretKey|expectedSignature|apiKey)\b|(?<!typeof )\b(authToken|csrfToken|signingKey|secretKey|expectedSignature|apiKey)\s*[!=]==(?!\s*(?:undefined\b|null\b|'string'|"string"))/;

describe('secret comparisons', () => {
  it('behavior: the sites that check a client-sent secret use constantTimeEqual or timingSafeEqual', () => {
    const uses = (file: string, fn: string) => readFileSync(join(src, file), 'utf8').includes(`${fn}(`);
    expect({
      managementToken: uses('http/api/createApiApp.ts', 'constantTimeEqual'),
      dashboardSignIn: uses('dashboard/sessionRoutes.ts', 'constantTimeEqual'),
      dashboardCsrf: uses('dashboard/sessionCheck.ts', 'constantTimeEqual'),
      listenerSignature: uses('notify/listener/verifySignature.ts', 'timingSafeEqual'),
    }).toEqual({ managementToken: true, dashboardSignIn: true, dashboardCsrf: true, listenerSignature: true });
  });

  it('error: no source file compares a secret with === or !==', () => {
    const found = sources(src).flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .map((line, i) => ({ line, at: `${relative(src, file)}:${i + 1}` }))
        .filter(({ line }) => !line.trim().startsWith('//') && PLAIN_COMPARISON.test(line))
        .map(({ at, line }) => `${at} ${line.trim()}`),
    );
    expect(found).toEqual([]);
    // The check can fail: it sees the quick way of writing such a comparison.
    expect(PLAIN_COMPARISON.test('if (token === options.authToken) return ok;')).toBe(true);
    expect(PLAIN_COMPARISON.test("if (csrf !== found.csrfToken) return no;")).toBe(true);
    expect(PLAIN_COMPARISON.test('if (options.authToken === undefined) return;')).toBe(false);
    expect(PLAIN_COMPARISON.test("typeof signingKey === 'string'")).toBe(false);
  });
});
