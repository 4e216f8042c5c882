// Reads a request stream to bytes with a size limit. Adapters use it so no framework body parser
// sits between the wire and the signature check.
import type { IncomingMessage } from 'node:http';

export class RawBodyTooLargeError extends Error {
  override name = 'RawBodyTooLargeError';
}

export function readRawBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBytes) {
      req.resume();
      return reject(new RawBodyTooLargeError(`body larger than ${maxBytes} bytes`));
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        req.removeAllListeners('data');
        req.resume();
        reject(new RawBodyTooLargeError(`body larger than ${maxBytes} bytes`));
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks, size)));
    req.on('error', reject);
  });
}
