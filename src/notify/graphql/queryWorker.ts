// The worker thread that executes Custom webhook queries over one block at a time, so a slow or
// huge query never holds the main thread: it keeps the current block (and its ancestors, for
// `parent`), runs each query with the result meter, and sends back the serialized data.
import { parentPort } from 'node:worker_threads';
import { parse, type DocumentNode } from 'graphql';
import type { Hex } from '../../rpc/hex.js';
import type { BlockData } from '../extract/blockData.js';
import type { BlockNode } from './blockNodes.js';
import { prepareBlock, runCustomQuery } from './customQuery.js';
import type { QueryWorkerReply, QueryWorkerRequest } from './queryWorkerProtocol.js';

const port = parentPort!;
const reply = (message: QueryWorkerReply) => port.postMessage(message);
/** Parsed queries by text (the main thread validated them); cleared when it grows past this. */
const MAX_PARSED = 256;
const parsed = new Map<string, DocumentNode>();
let block: BlockNode | undefined;
let ancestors = new Map<string, BlockData>();

function documentOf(query: string): DocumentNode {
  let document = parsed.get(query);
  if (!document) {
    if (parsed.size >= MAX_PARSED) parsed.clear();
    document = parse(query);
    parsed.set(query, document);
  }
  return document;
}

async function run(request: Extract<QueryWorkerRequest, { kind: 'run' }>): Promise<QueryWorkerReply> {
  if (!block) return { kind: 'failed', id: request.id, message: 'no block was sent before the query' };
  const loadBlock = async (hash: Hex) => ancestors.get(hash.toLowerCase());
  const result = await runCustomQuery({ document: documentOf(request.query), variables: request.variables }, block, { loadBlock }, { maxResultBytes: request.maxResultBytes });
  if (result.tooLarge) return { kind: 'tooLarge', id: request.id };
  const json = result.data === null ? null : JSON.stringify(result.data);
  // The meter estimates; the serialized text is what the limit is about.
  if (json !== null && Buffer.byteLength(json) > request.maxResultBytes) return { kind: 'tooLarge', id: request.id, bytes: Buffer.byteLength(json) };
  return { kind: 'result', id: request.id, json, errors: result.errors.slice(0, 10), empty: result.empty };
}

port.on('message', (request: QueryWorkerRequest) => {
  if (request.kind === 'block') {
    block = prepareBlock(request.block);
    ancestors = new Map(request.ancestors.map((b) => [b.header.hash.toLowerCase(), b]));
    reply({ kind: 'blockReady', hash: request.block.header.hash.toLowerCase() });
    return;
  }
  run(request).then(reply, (error: unknown) => reply({ kind: 'failed', id: request.id, message: error instanceof Error ? error.message : String(error) }));
});
reply({ kind: 'ready' });
