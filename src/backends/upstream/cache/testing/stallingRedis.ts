// Test support: a server that speaks just enough of Redis's protocol for a client to connect (HELLO,
// CLIENT SETINFO, INFO answered as a real server does) and then never answers any other command:
// a Redis that is up but stalled, for the bounded waits of its users.
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface StallingRedis {
  readonly url: string;
  /** Commands received and left unanswered, by name (upper case). */
  readonly stalled: Map<string, number>;
  close(): Promise<void>;
}

/** Splits complete RESP arrays of bulk strings off the front of `buffer`; returns them and the rest. */
function takeCommands(buffer: string): { commands: string[][]; rest: string } {
  const commands: string[][] = [];
  let at = 0;
  for (;;) {
    const start = at;
    const end = buffer.indexOf('\r\n', at);
    if (end < 0 || buffer[at] !== '*') return { commands, rest: buffer.slice(start) };
    const count = Number(buffer.slice(at + 1, end));
    at = end + 2;
    const parts: string[] = [];
    for (let k = 0; k < count; k++) {
      const lineEnd = buffer.indexOf('\r\n', at);
      if (lineEnd < 0) return { commands, rest: buffer.slice(start) };
      const length = Number(buffer.slice(at + 1, lineEnd));
      at = lineEnd + 2;
      if (buffer.length < at + length + 2) return { commands, rest: buffer.slice(start) };
      parts.push(buffer.slice(at, at + length));
      at += length + 2;
    }
    commands.push(parts);
  }
}

const INFO = '# Server\r\nredis_version:7.0.0\r\nloading:0\r\n';

export async function startStallingRedis(): Promise<StallingRedis> {
  const sockets = new Set<Socket>();
  const stalled = new Map<string, number>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let pending = '';
    socket.on('data', (chunk: Buffer) => {
      const { commands, rest } = takeCommands(pending + chunk.toString('latin1'));
      pending = rest;
      for (const [name = ''] of commands) {
        const command = name.toUpperCase();
        if (command === 'HELLO') socket.write('%2\r\n+server\r\n+redis\r\n+proto\r\n:3\r\n');
        else if (command === 'CLIENT') socket.write('+OK\r\n');
        else if (command === 'INFO') socket.write(`$${Buffer.byteLength(INFO)}\r\n${INFO}\r\n`);
        else stalled.set(command, (stalled.get(command) ?? 0) + 1);
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `redis://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stalled,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
