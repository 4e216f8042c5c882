// Public boundary of the chain follower for the service wiring (main.ts): the follower, its block
// sources (embedded chain, JSON-RPC node), and the backfill request the webhooks API makes.
export { createChainFollower, type ChainFollower, type ChainFollowerOptions, type FollowerOutbox, type SyncReport } from './chainFollower.js';
export type { BlockSource } from './blockSource.js';
export { createChainBlockSource, chainBlockToBlockData, type BlockTracer, type ChainBlockSourceOptions } from './chainBlockSource.js';
export { createEngineBlockTracer } from './engineBlockTracer.js';
export { createJsonRpcBlockSource, createHttpJsonRpc, type JsonRpcRequest, type JsonRpcBlockSourceOptions } from './jsonRpcBlockSource.js';
export { createMemoryBlockSource, type MemoryBlockSource } from './memoryBlockSource.js';
export { requestBackfill, readCursor, type BlockRef } from './followerStore.js';
export { validateCustomWebhookQuery } from '../graphql/customQuery.js';
export { createFollowerRoutes, BackfillWebhookBody } from './backfillRoute.js';
