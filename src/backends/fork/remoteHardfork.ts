// The rules an upstream chain ran a block under, for fork execution (issue 13): a known chain id
// (Ethereum mainnet, Sepolia, Holesky, Hoodi) by its published schedule at the block's number and
// timestamp; any other chain by the fields its header carries, each new header field marking the
// fork that added it (requestsHash → Prague, blob gas fields → Cancun, withdrawalsRoot → Shanghai,
// a zero difficulty with base fee → Paris, base fee → London, neither → Berlin). Header fields set
// only a range: when the configured hardfork lies inside the range the header allows (e.g. Osaka
// on a chain whose headers look like Prague's, which Osaka did not change) the configured one is
// kept, else the range's first fork (Berlin for headers older than London).
import { Common, Hardfork, Holesky, Hoodi, Mainnet, Sepolia, type ChainConfig } from '@ethereumjs/common';

/** Header fields the inference reads, as eth_getBlockBy* gives them. */
export interface RemoteHeader {
  number: string;
  timestamp: string;
  difficulty?: string | null;
  baseFeePerGas?: string | null;
  withdrawalsRoot?: string | null;
  blobGasUsed?: string | null;
  excessBlobGas?: string | null;
  parentBeaconBlockRoot?: string | null;
  requestsHash?: string | null;
}

const KNOWN_CHAINS: ReadonlyMap<bigint, ChainConfig> = new Map([
  [1n, Mainnet],
  [11155111n, Sepolia],
  [17000n, Holesky],
  [560048n, Hoodi],
].map(([id, config]) => [BigInt(id as bigint), config as ChainConfig]));

/** Forks in order (ethereumjs's mainnet order), for range checks. */
const ORDER: readonly string[] = Mainnet.hardforks.map((h) => h.name);
const rank = (fork: string): number => {
  const at = ORDER.indexOf(fork);
  return at < 0 ? ORDER.length : at;
};

/** Header generations: the first fork whose headers look like this, and the first fork after it whose headers do not. */
const GENERATIONS: ReadonlyArray<{ test: (h: RemoteHeader) => boolean; first: Hardfork; until?: Hardfork; pick: Hardfork }> = [
  { test: (h) => present(h.requestsHash), first: Hardfork.Prague, pick: Hardfork.Prague },
  { test: (h) => present(h.blobGasUsed) || present(h.excessBlobGas) || present(h.parentBeaconBlockRoot), first: Hardfork.Cancun, until: Hardfork.Prague, pick: Hardfork.Cancun },
  { test: (h) => present(h.withdrawalsRoot), first: Hardfork.Shanghai, until: Hardfork.Cancun, pick: Hardfork.Shanghai },
  { test: (h) => present(h.baseFeePerGas) && isZero(h.difficulty), first: Hardfork.Paris, until: Hardfork.Shanghai, pick: Hardfork.Paris },
  { test: (h) => present(h.baseFeePerGas), first: Hardfork.London, until: Hardfork.Paris, pick: Hardfork.London },
  { test: () => true, first: Hardfork.Chainstart, until: Hardfork.London, pick: Hardfork.Berlin },
];

function present(value: string | null | undefined): boolean {
  return typeof value === 'string' && value.length > 0;
}

function isZero(value: string | null | undefined): boolean {
  return typeof value === 'string' && /^0x0*$/.test(value);
}

const commons = new Map<ChainConfig, Common>();

/**
 * The fork block `header` of chain `chainId` ran under; `configured` is the operator's setting for
 * the network (kept when the header allows it, see above).
 */
export function remoteHardfork(chainId: bigint, header: RemoteHeader, configured: string): string {
  const known = KNOWN_CHAINS.get(chainId);
  if (known) {
    let common = commons.get(known);
    if (!common) commons.set(known, (common = new Common({ chain: known })));
    return common.getHardforkBy({ blockNumber: BigInt(header.number), timestamp: BigInt(header.timestamp) });
  }
  const generation = GENERATIONS.find((g) => g.test(header))!;
  const inRange = rank(configured) >= rank(generation.first) && (generation.until === undefined || rank(configured) < rank(generation.until));
  return inRange ? configured : generation.pick;
}
