// Test support: a WebSocket client written on a bare TCP socket, so a test can send what no
// library client would (any opcode, reserved bits, unmasked frames, lying lengths, invalid UTF-8,
// fragments interleaved with control frames) and can stop reading to play a slow reader. It
// parses the server's frames: text messages and the close code.
import { connect, type Socket } from 'node:net';
import { randomBytes } from 'node:crypto';

export interface RawFrame {
  fin: boolean;
  /** The three reserved bits, 0–7. */
  rsv: number;
  opcode: number;
  masked: boolean;
  payload: Uint8Array;
}

/** Encodes one frame as a client would (masked unless told otherwise). */
export function encodeFrame(frame: RawFrame): Buffer {
  const len = frame.payload.length;
  const head: number[] = [(frame.fin ? 0x80 : 0) | ((frame.rsv & 7) << 4) | (frame.opcode & 0x0f)];
  const maskBit = frame.masked ? 0x80 : 0;
  if (len < 126) head.push(maskBit | len);
  else if (len < 65536) head.push(maskBit | 126, len >> 8, len & 0xff);
  else head.push(maskBit | 127, 0, 0, 0, 0, (len >>> 24) & 0xff, (len >>> 16) & 0xff, (len >>> 8) & 0xff, len & 0xff);
  if (!frame.masked) return Buffer.concat([Buffer.from(head), frame.payload]);
  const mask = randomBytes(4);
  const body = Buffer.from(frame.payload);
  for (let i = 0; i < body.length; i++) body[i]! ^= mask[i & 3]!;
  return Buffer.concat([Buffer.from(head), mask, body]);
}

export const textFrame = (text: string): Buffer => encodeFrame({ fin: true, rsv: 0, opcode: 1, masked: true, payload: Buffer.from(text) });

export class RawWsClient {
  readonly texts: string[] = [];
  /** The server's close code (1005 when its close frame had none); undefined while open. */
  closeCode: number | undefined;
  ended = false;
  #pending = Buffer.alloc(0);
  #handshake = true;

  private constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => this.#onData(chunk));
    socket.on('close', () => (this.ended = true));
    socket.on('error', () => (this.ended = true));
  }

  /** Opens `ws://host:port/path` and completes the upgrade; rejects with the HTTP status line otherwise. */
  static open(url: string): Promise<RawWsClient> {
    const u = new URL(url);
    return new Promise((resolve, reject) => {
      const socket = connect(Number(u.port), u.hostname);
      const client = new RawWsClient(socket);
      socket.once('connect', () =>
        socket.write(
          `GET ${u.pathname} HTTP/1.1\r\nHost: ${u.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
        ),
      );
      const started = Date.now();
      const wait = () => {
        if (!client.#handshake) return resolve(client);
        if (client.ended || Date.now() - started > 10_000) return reject(new Error('upgrade refused or timed out'));
        setTimeout(wait, 5);
      };
      wait();
    });
  }

  write(bytes: Uint8Array): void {
    if (!this.socket.destroyed) this.socket.write(bytes);
  }

  /** Waits until `done()` holds, the connection ends, or `timeoutMs` passes; returns whether `done()` held. */
  async until(done: () => boolean, timeoutMs = 5_000): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!done() && !this.ended && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    return done();
  }

  destroy(): void {
    this.socket.destroy();
  }

  #onData(chunk: Buffer): void {
    this.#pending = Buffer.concat([this.#pending, chunk]);
    if (this.#handshake) {
      const end = this.#pending.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = this.#pending.subarray(0, end).toString('latin1');
      if (!/^HTTP\/1\.1 101/.test(head)) {
        this.socket.destroy();
        return;
      }
      this.#handshake = false;
      this.#pending = this.#pending.subarray(end + 4);
    }
    for (;;) {
      if (this.#pending.length < 2) return;
      const opcode = this.#pending[0]! & 0x0f;
      let len = this.#pending[1]! & 0x7f;
      let offset = 2;
      if (len === 126) {
        if (this.#pending.length < 4) return;
        len = this.#pending.readUInt16BE(2);
        offset = 4;
      } else if (len === 127) {
        if (this.#pending.length < 10) return;
        len = Number(this.#pending.readBigUInt64BE(2));
        offset = 10;
      }
      if (this.#pending.length < offset + len) return;
      const payload = this.#pending.subarray(offset, offset + len);
      this.#pending = this.#pending.subarray(offset + len);
      if (opcode === 1) this.texts.push(payload.toString('utf8'));
      if (opcode === 8) this.closeCode = payload.length >= 2 ? payload.readUInt16BE(0) : 1005;
    }
  }
}
