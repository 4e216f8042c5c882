// Every setting of the service in one list: its flag, environment variable (TRACEHOOK_<NAME>),
// config-file key, type, default and help text. Flags, env and file are all generated from it.
import { z } from 'zod';
import { NetworksSection, isHttpUrl } from './networks.js';
import { NETWORK_NAME, RESERVED_NETWORK_KEYS, RESERVED_NETWORK_KEYS_TEXT, networkKey } from './networkNames.js';

export type OptionKind = 'string' | 'int' | 'bool' | 'list';

export interface OptionDef {
  /** camelCase key in the config file and in `ServiceConfig`. */
  key: string;
  /** Value placeholder in --help (absent for booleans). */
  arg?: string;
  kind: OptionKind;
  description: string;
  default?: string | number | boolean | string[];
  /** Settable on the command line and in env, but not inside a config file (e.g. `config` itself). */
  fileKey?: false;
  /** A flag that may be given more than once, each adding to the list (`--upstream a --upstream b`). */
  repeatable?: true;
  /** Only meaningful to `start`. */
  group: 'server' | 'networks' | 'chain' | 'gateway' | 'tracing' | 'webhooks' | 'store' | 'general';
}

const ETH = 10n ** 18n;

export const optionDefs = [
  { key: 'config', arg: 'file', kind: 'string', group: 'general', fileKey: false, description: 'YAML or JSON config file; every option below can be set in it by its camelCase name' },
  { key: 'host', arg: 'host', kind: 'string', group: 'server', default: '127.0.0.1', description: 'interface to listen on' },
  { key: 'port', arg: 'port', kind: 'int', group: 'server', default: 8545, description: 'TCP port to listen on' },
  { key: 'dataDir', arg: 'dir', kind: 'string', group: 'general', default: './.tracehook', description: 'where the chain, the service database and generated secrets are kept' },
  { key: 'devApiKey', arg: 'key', kind: 'string', group: 'server', description: 'API key (enterprise tier) to create at start; generated once and kept in the data dir when absent' },
  { key: 'authToken', arg: 'token', kind: 'string', group: 'server', description: 'auth token for the management API (/api); generated once and kept in the data dir when absent' },
  { key: 'logLevel', arg: 'level', kind: 'string', group: 'general', default: 'info', description: 'log level: fatal, error, warn, info, debug, trace or silent' },
  { key: 'databaseUrl', arg: 'url', kind: 'string', group: 'store', description: 'PostgreSQL URL for service state (keys, webhooks, deliveries); SQLite in the data dir when absent' },
  { key: 'role', arg: 'role', kind: 'string', group: 'store', default: 'all', description: 'what this process runs: all (gateway, delivery worker, chain followers), gateway (JSON-RPC, /api, dashboard), worker (webhook deliveries) or follower (the upstream networks\' chain followers, one active per network across processes, the others standing by); every role but all needs --database-url' },
  { key: 'redisUrl', arg: 'url', kind: 'string', group: 'store', description: 'Redis URL (redis://host:port) holding the compute-unit buckets of every key, shared by all gateway processes; when Redis fails, payg/enterprise keys fall back to this process\'s own bucket and free keys are refused; without it each process has its own buckets' },
  { key: 'redisPrefix', arg: 'prefix', kind: 'string', group: 'store', default: 'tracehook:', description: 'prefix of every Redis key (`<prefix>cu:` compute-unit buckets, `<prefix>tc:` shared traces), so several deployments can share one Redis' },
  { key: 'sharedCacheMb', arg: 'mib', kind: 'int', group: 'store', default: 256, description: 'with --redis-url: bound (MiB, values and keys) of the traces of upstream networks shared by all gateways in Redis, behind each process\'s own cache (--upstream-cache-mb); only answers whose block is final, or named by hash and still canonical when read; 0 disables' },
  { key: 'sharedCacheTtlSec', arg: 'seconds', kind: 'int', group: 'store', default: 3600, description: 'life of a trace in the shared cache (--redis-url)' },
  { key: 'embeddedUpstream', arg: 'url', kind: 'string', group: 'store', description: 'URL (http://host:port) of the --role all process that owns the embedded chain; this --role gateway process then serves the embedded chain\'s network (LOCAL, or --network-name) through that process\'s internal endpoint (/internal/<network>, authenticated with the auth token, so give both the same --auth-token) instead of running a chain of its own' },
  { key: 'processes', arg: 'n', kind: 'int', group: 'store', default: 1, description: 'processes serving HTTP on one port on this machine (node:cluster): one owns the embedded chain, the delivery worker and the followers, the other n-1 are gateways reaching its chain internally; a child that dies is restarted; more than 1 needs --database-url' },
  { key: 'acceptDataLoss', kind: 'bool', group: 'store', default: false, description: 'start even though the data dir lost state (service.sqlite missing beside a chain with blocks, or the webhook follower\'s last block missing from chain.sqlite); without it such a start is refused' },
  { key: 'upstream', arg: 'url', kind: 'list', repeatable: true, group: 'networks', description: 'JSON-RPC node (http or https) served as one network named from the chain id it answers at start (1 ETH_MAINNET, 8453 BASE_MAINNET, …, else `CHAIN_<id>`; README, Networks); repeat the flag (commas in env) for several nodes of that chain; that network is served first, at `/v2/<key>` too, the embedded chain after it' },
  { key: 'networkName', arg: 'name', kind: 'string', group: 'networks', default: 'LOCAL', description: 'network name of the embedded chain (`/<name>/v2/<key>`, webhooks\' `network`), e.g. ETH_SEPOLIA so the hosted provider\'s SDK can address it unchanged; a `networks` entry with `embedded: true` names it instead' },
  { key: 'upstreamCacheMb', arg: 'mib', kind: 'int', group: 'networks', default: 256, description: 'memory (MiB of JSON text) per upstream network for answers that cannot change once their block is final or named by hash (traces, receipts, blocks and transactions by hash); 0 disables; X-Cache tells hits' },
  { key: 'upstreamTimeoutMs', arg: 'ms', kind: 'int', group: 'networks', default: 30_000, description: 'deadline of one attempt on one upstream node; past it the call fails over to the next capable node' },
  { key: 'chainId', arg: 'id', kind: 'int', group: 'chain', default: 31337, description: 'chain id of the embedded chain' },
  { key: 'hardfork', arg: 'name', kind: 'string', group: 'chain', default: 'prague', description: 'hardfork of the embedded chain (e.g. cancun, prague)' },
  { key: 'mnemonic', arg: 'words', kind: 'string', group: 'chain', default: 'test test test test test test test test test test test junk', description: 'mnemonic of the dev accounts' },
  { key: 'accounts', arg: 'n', kind: 'int', group: 'chain', default: 10, description: 'number of funded dev accounts' },
  { key: 'balance', arg: 'eth', kind: 'int', group: 'chain', default: 10000, description: 'initial balance of each dev account, in ETH' },
  { key: 'blockTime', arg: 'seconds', kind: 'int', group: 'chain', default: 0, description: 'interval mining every N seconds; 0 mines one block per transaction' },
  { key: 'gasLimit', arg: 'gas', kind: 'int', group: 'chain', default: 30_000_000, description: 'block gas limit' },
  { key: 'baseFee', arg: 'wei', kind: 'int', group: 'chain', default: 1_000_000_000, description: 'base fee of the genesis block, in wei' },
  { key: 'coinbase', arg: 'address', kind: 'string', group: 'chain', default: '0x0000000000000000000000000000000000000000', description: 'block beneficiary' },
  { key: 'loadState', arg: 'file', kind: 'string', group: 'chain', description: 'at start, merge the accounts of a state file (anvil --dump-state / anvil_dumpState JSON, or gzipped) into the embedded chain\'s working state, as anvil --load-state does; a corrupt file stops the start' },
  { key: 'dumpState', arg: 'file', kind: 'string', group: 'chain', description: 'at a clean shutdown (SIGINT/SIGTERM), write the embedded chain\'s state (accounts, code, storage) to this file as anvil --dump-state does (JSON; a directory gets <dir>/state.json)' },
  { key: 'forkUrl', arg: 'url', kind: 'string', group: 'chain', description: 'fork mode: run the embedded chain on top of this remote node\'s state (as anvil --fork-url does); its chain id and block rules replace --chain-id and --hardfork, state is read on demand by eth_getProof (an archive node for an old --fork-block); README, Fork mode' },
  { key: 'forkBlock', arg: 'n', kind: 'int', group: 'chain', description: 'fork mode: the remote block to fork from (default: the remote\'s latest block at the data dir\'s creation)' },
  { key: 'gasCap', arg: 'gas', kind: 'int', group: 'tracing', default: 50_000_000, description: 'gas cap of eth_call, eth_estimateGas and traced calls' },
  { key: 'traceTimeoutMs', arg: 'ms', kind: 'int', group: 'tracing', default: 5000, description: 'default timeout of one trace' },
  { key: 'callTimeoutMs', arg: 'ms', kind: 'int', group: 'tracing', default: 5000, description: 'time budget of one eth_call, or of one eth_estimateGas search; past it the call fails with -32000 execution timeout' },
  { key: 'traceTimeoutMaxMs', arg: 'ms', kind: 'int', group: 'tracing', default: 30_000, description: 'longest timeout a trace request may ask for (debug_trace* `timeout`); a longer one runs with this' },
  { key: 'traceMaxBytes', arg: 'bytes', kind: 'int', group: 'tracing', default: 64 * 1024 * 1024, description: 'largest answer of one recorded trace (struct log and vmTrace steps and call frames\' data are counted while recording); a larger trace fails with -32005' },
  { key: 'traceMaxSteps', arg: 'n', kind: 'int', group: 'tracing', default: 1_000_000, description: 'most opcode steps one struct log or vmTrace request may record (a client\'s `limit` truncates first); more fail with -32005' },
  { key: 'traceWorkers', arg: 'n', kind: 'int', group: 'tracing', description: 'worker threads that run traces, eth_call and eth_estimateGas (default: CPU cores - 1, at least 1); 0 runs them on the main thread' },
  { key: 'traceQueueLimit', arg: 'n', kind: 'int', group: 'tracing', default: 4096, description: 'traces and calls that may wait for a trace worker, queued per API key and served in turn (so a deep queue delays no other key); one key holds at most max(8, limit / keys waiting); beyond it -32005 at once (retry later)' },
  { key: 'traceCacheMb', arg: 'mib', kind: 'int', group: 'tracing', default: 64, description: 'memory (MiB of rendered JSON) for traces of mined transactions and blocks, kept until a reorg or until the least recently used are evicted' },
  { key: 'minedTraceMemoryMb', arg: 'mib', kind: 'int', group: 'tracing', default: 64, description: 'memory (estimated MiB) for call frames and logs recorded while mining, so the first trace of a mined transaction renders without a replay; 0 disables' },
  { key: 'chainCacheMb', arg: 'mib', kind: 'int', group: 'chain', default: 80, description: 'memory (estimated MiB) for the embedded chain\'s decoded blocks (a fifth), values read from its state (a fifth) and state trie nodes and code (the rest) kept in memory, least recently used evicted first; in each thread that holds the chain: the main one and every trace worker' },
  { key: 'maxBodyBytes', arg: 'bytes', kind: 'int', group: 'gateway', default: 5 * 1024 * 1024, description: 'largest accepted request body (HTTP 413 above)' },
  { key: 'maxBatchSize', arg: 'n', kind: 'int', group: 'gateway', default: 1000, description: 'largest accepted JSON-RPC batch (HTTP 413 above)' },
  { key: 'maxResponseBytes', arg: 'bytes', kind: 'int', group: 'gateway', default: 128 * 1024 * 1024, description: 'largest answer of one JSON-RPC batch; elements past it answer -32005 and the batch\'s other calls are cancelled' },
  { key: 'corsOrigins', arg: 'origins', kind: 'list', group: 'gateway', default: ['*'], description: 'comma-separated origins allowed by CORS on the JSON-RPC endpoint (* for any)' },
  { key: 'apiCorsOrigins', arg: 'origins', kind: 'list', group: 'gateway', default: [], description: 'comma-separated origins allowed by CORS on the management API (/api) and other non-JSON-RPC paths; none by default, so browsers on other sites cannot call it' },
  { key: 'nodeHttpOnly', kind: 'bool', group: 'gateway', default: false, description: 'parse every request with node:http alone, without the keep-alive JSON-RPC fast path (slower; for diagnosis)' },
  { key: 'production', kind: 'bool', group: 'webhooks', default: false, description: 'production mode: refuse webhook URLs on loopback/private/link-local/metadata addresses' },
  { key: 'webhookAllowList', arg: 'hosts', kind: 'list', group: 'webhooks', default: [], description: 'hosts or CIDRs allowed as webhook targets even in production mode' },
  { key: 'webhookTier', arg: 'tier', kind: 'string', group: 'webhooks', default: 'enterprise', description: 'tier of the auth token for webhooks: free or payg (5/100 webhooks, 10-minute retries) or enterprise (unlimited, 1-hour retries)' },
  { key: 'webhookRetryWindowSec', arg: 'seconds', kind: 'int', group: 'webhooks', description: 'how long a failing webhook delivery keeps being retried (back-off with jitter, starting at 1 s) before it is marked failed and waits for a replay; default the tier\'s (600 free/payg, 3600 enterprise); a few seconds suit local development and tests' },
  { key: 'webhookConcurrency', arg: 'n', kind: 'int', group: 'webhooks', default: 32, description: 'webhook delivery attempts in flight at once' },
  { key: 'webhookTimeoutMs', arg: 'ms', kind: 'int', group: 'webhooks', default: 10_000, description: 'timeout of one webhook delivery attempt' },
  { key: 'webhookRetentionSec', arg: 'seconds', kind: 'int', group: 'webhooks', default: 30 * 24 * 3600, description: 'how long a delivered webhook event, its body and its attempt log are kept after its successful attempt (pruned in small batches every minute); never an event still pending or retrying; 0 keeps them forever' },
  { key: 'webhookDeadLetterRetentionSec', arg: 'seconds', kind: 'int', group: 'webhooks', default: 90 * 24 * 3600, description: 'how long a failed webhook event (past its retry window, waiting for a replay) is kept after its last attempt; 0 keeps them forever' },
] as const satisfies readonly OptionDef[];

export type OptionKey = (typeof optionDefs)[number]['key'];

/** Nested sections of the config file: no flag or environment variable (README, "Networks"). */
export const fileSectionDefs = [
  { key: 'networks', description: 'networks served, each with a name, a chain id, upstream JSON-RPC nodes and whether the embedded chain serves it (config/networks.ts)' },
] as const;

/** The validated configuration the service starts with. */
export const ServiceConfig = z.object({
  config: z.string().optional(),
  host: z.string().min(1),
  port: z.number().int().min(0).max(65535),
  dataDir: z.string().min(1),
  devApiKey: z.string().regex(/^[A-Za-z0-9_-]{8,128}$/, { error: 'devApiKey must be 8-128 characters of A-Z a-z 0-9 _ -' }).optional(),
  authToken: z.string().min(16, { error: 'authToken must be at least 16 characters' }).optional(),
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
  databaseUrl: z.string().regex(/^postgres(ql)?:\/\//, { error: 'databaseUrl must be a postgres:// URL' }).optional(),
  acceptDataLoss: z.boolean(),
  chainId: z.number().int().positive(),
  hardfork: z.string().min(1),
  forkUrl: z.string().regex(/^https?:\/\//, { error: 'forkUrl must be an http(s) URL' }).optional(),
  forkBlock: z.number().int().min(0).optional(),
  mnemonic: z.string().min(1),
  accounts: z.number().int().min(0).max(1000),
  balance: z.number().int().min(0),
  blockTime: z.number().int().min(0),
  gasLimit: z.number().int().positive(),
  baseFee: z.number().int().min(0),
  coinbase: z.string().regex(/^0x[0-9a-fA-F]{40}$/, { error: 'coinbase must be a 20-byte hex address' }),
  loadState: z.string().min(1).optional(),
  dumpState: z.string().min(1).optional(),
  gasCap: z.number().int().positive(),
  traceTimeoutMs: z.number().int().positive(),
  // Node timers overflow past 2^31-1 ms.
  callTimeoutMs: z.number().int().positive().max(2 ** 31 - 1),
  traceTimeoutMaxMs: z.number().int().positive().max(2 ** 31 - 1),
  // An answer is one JavaScript string, and V8's strings stop at about 512 MiB ("Invalid string length").
  traceMaxBytes: z.number().int().positive().max(256 * 1024 * 1024),
  traceMaxSteps: z.number().int().positive(),
  traceWorkers: z.number().int().min(0).max(256).optional(),
  traceQueueLimit: z.number().int().min(1),
  traceCacheMb: z.number().int().min(1).max(64 * 1024),
  minedTraceMemoryMb: z.number().int().min(0),
  chainCacheMb: z.number().int().min(1).max(64 * 1024),
  maxBodyBytes: z.number().int().positive(),
  maxBatchSize: z.number().int().positive(),
  // An answer is one JavaScript string (V8 stops near 512 MiB).
  maxResponseBytes: z.number().int().positive().max(256 * 1024 * 1024),
  corsOrigins: z.array(z.string()),
  apiCorsOrigins: z.array(z.string()),
  nodeHttpOnly: z.boolean(),
  production: z.boolean(),
  webhookAllowList: z.array(z.string()),
  webhookTier: z.enum(['free', 'payg', 'enterprise']),
  role: z.enum(['all', 'gateway', 'worker', 'follower']),
  redisUrl: z.string().regex(/^rediss?:\/\//, { error: 'redisUrl must be a redis:// URL' }).optional(),
  redisPrefix: z.string().regex(/^[\w:.-]{1,64}$/, { error: 'redisPrefix must be 1-64 letters, digits, _ : . or -' }),
  sharedCacheMb: z.number().int().min(0).max(64 * 1024),
  sharedCacheTtlSec: z.number().int().min(1).max(30 * 24 * 3600),
  embeddedUpstream: z.string().refine(isHttpUrl, { error: 'embeddedUpstream must be an http(s) URL' }).optional(),
  processes: z.number().int().min(1, { error: 'processes must be between 1 and 64' }).max(64, { error: 'processes must be between 1 and 64' }),
  webhookRetryWindowSec: z.number().int().min(1).max(7 * 24 * 3600).optional(),
  webhookConcurrency: z.number().int().min(1).max(1000),
  webhookTimeoutMs: z.number().int().positive(),
  webhookRetentionSec: z.number().int().min(0),
  webhookDeadLetterRetentionSec: z.number().int().min(0),
  // The message never repeats the URL: it may hold credentials.
  upstreamCacheMb: z.number().int().min(0).max(64 * 1024),
  upstreamTimeoutMs: z.number().int().min(100).max(600_000),
  upstream: z.array(z.string().refine(isHttpUrl, { error: 'must be an http(s) URL' }), { error: 'must be a list of http(s) URLs' }).optional(),
  networkName: z
    .string()
    .regex(NETWORK_NAME, { error: 'networkName must be 1-63 letters, digits, _ or -, starting with a letter or digit' })
    .refine((name) => !RESERVED_NETWORK_KEYS.includes(networkKey(name)), { error: `networkName must not be ${RESERVED_NETWORK_KEYS_TEXT}` }),
  networks: NetworksSection.optional(),
})
  .refine((c) => c.traceTimeoutMs <= c.traceTimeoutMaxMs, { path: ['traceTimeoutMs'], error: 'traceTimeoutMs must not exceed traceTimeoutMaxMs' })
  .refine((c) => c.role === 'all' || c.databaseUrl, { path: ['role'], error: 'every role but all shares its state with other processes: give --database-url postgres://…' })
  .refine((c) => !c.embeddedUpstream || c.role === 'gateway', {
    path: ['embeddedUpstream'],
    error: 'embeddedUpstream is for --role gateway processes: the process that owns the embedded chain (--role all) runs it itself',
  })
  .refine((c) => !c.embeddedUpstream || (!c.forkUrl && !c.loadState && !c.dumpState), {
    path: ['embeddedUpstream'],
    error: 'embeddedUpstream: forkUrl, loadState and dumpState belong to the process that owns the embedded chain, not to a gateway reaching it',
  })
  .refine((c) => c.processes === 1 || c.databaseUrl, {
    path: ['processes'],
    error: 'processes above 1 share keys, webhooks and deliveries through PostgreSQL: give --database-url postgres://… (the SQLite store in the data dir belongs to one process)',
  })
  .refine((c) => c.processes === 1 || c.role === 'all', { path: ['processes'], error: 'processes above 1 need --role all (the first process owns the chain, the others are gateways)' })
  .refine((c) => !(c.upstream?.length && c.networks?.length), { path: ['upstream'], error: 'give upstream nodes either with upstream (--upstream) or in the networks section, not both' });
export type ServiceConfig = z.infer<typeof ServiceConfig>;

/** Initial dev-account balance in wei. */
export function balanceWei(config: ServiceConfig): bigint {
  return BigInt(config.balance) * ETH;
}

/** `dataDir` → `TRACEHOOK_DATA_DIR`. */
export function envName(key: string): string {
  return `TRACEHOOK_${key.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`;
}

/** `dataDir` → `--data-dir`. */
export function flagName(key: string): string {
  return `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}
