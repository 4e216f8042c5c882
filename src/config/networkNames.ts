// Network names: the spelling a config gives (`ETH_MAINNET`), the key every lookup compares
// (`eth-mainnet`: lowercase, `_` as `-`, so `/eth-mainnet/v2/k`, `/ETH_MAINNET/v2/k` and a webhook's
// `network: "eth_mainnet"` all name the same network), and the name a probed chain id gets.

/** Letters, digits, `_` or `-`, starting with a letter or digit, at most 63 characters. */
export const NETWORK_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$/;

/** Keys a network cannot take: they are path words of the gateway (`/v2/<key>`, `/api/...`). */
export const RESERVED_NETWORK_KEYS: readonly string[] = ['v2', 'api', 'internal'];

/** `v2, api or internal`, for error messages. */
export const RESERVED_NETWORK_KEYS_TEXT = `${RESERVED_NETWORK_KEYS.slice(0, -1).join(', ')} or ${RESERVED_NETWORK_KEYS.at(-1)!}`;

/** The key two spellings of one network share: lowercase, `_` written `-`. */
export function networkKey(name: string): string {
  return name.toLowerCase().replaceAll('_', '-');
}

/** Names of the hosted provider for well-known chain ids (its SDK sends these). */
const CHAIN_NAMES: ReadonlyMap<bigint, string> = new Map([
  [1n, 'ETH_MAINNET'],
  [11155111n, 'ETH_SEPOLIA'],
  [17000n, 'ETH_HOLESKY'],
  [8453n, 'BASE_MAINNET'],
  [84532n, 'BASE_SEPOLIA'],
  [10n, 'OPT_MAINNET'],
  [42161n, 'ARB_MAINNET'],
  [137n, 'MATIC_MAINNET'],
]);

/** `1n` → `ETH_MAINNET`; an id without a well-known name → `CHAIN_<id>`. */
export function networkNameForChainId(chainId: bigint): string {
  return CHAIN_NAMES.get(chainId) ?? `CHAIN_${chainId}`;
}

/** The served name `requested` stands for (case-insensitive, `-` for `_`), or undefined. */
export function findNetworkName(served: readonly string[], requested: string): string | undefined {
  const key = networkKey(requested);
  return served.find((name) => networkKey(name) === key);
}
