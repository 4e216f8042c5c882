// Upgrade requests that are not WebSocket are served as the plain requests they also are, as
// before the gateway listened for upgrades: health, JSON-RPC with its body, and 404s.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../testing/startTestGateway.js';

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway({ limits: { requestTimeoutMs: 1000 } });
});
afterAll(() => t.close());

/** Sends raw bytes and resolves with everything the server writes until it closes. */
function exchange(raw: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(t.port, '127.0.0.1');
    let out = '';
    socket.setEncoding('utf8').on('data', (c: string) => (out += c));
    socket.once('error', reject);
    socket.once('close', () => resolve(out));
    socket.write(raw);
  });
}

describe('non-WebSocket upgrades', () => {
  it('default: GET /healthz with Upgrade: h2c answers as without it', async () => {
    const answer = await exchange('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(answer).toMatch(/Connection: close/i);
  });

  it('behavior: a JSON-RPC POST with Upgrade: h2c gets its answer, body read to Content-Length', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'eth_chainId' });
    const answer = await exchange(`POST /v2/${t.keys.free} HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: h2c\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(answer).toContain('{"jsonrpc":"2.0","id":5,"result":"0x7a69"}');
  });

  it('error: a body that never arrives is cut at the request timeout', async () => {
    const started = Date.now();
    const answer = await exchange(`POST /v2/${t.keys.free} HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: h2c\r\nContent-Length: 100\r\n\r\n{"jsonrpc"`);
    expect(answer).toBe('');
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('error: a WebSocket upgrade to a path that is not the endpoint is 404', async () => {
    const answer = await exchange('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 404 /);
    expect(answer).toContain('WebSocket JSON-RPC is served at /v2/<API_KEY>');
  });
});
