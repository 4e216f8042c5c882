// net_version: the network id, which on the dev chain is the chain id in decimal.
import type { web3Schema } from '../../rpc/schema/web3.js';
import type { MethodHandler } from './methodTable.js';
import type { Web3NamespaceOptions } from './web3Namespace.js';

export function net_version(options: Web3NamespaceOptions): MethodHandler<(typeof web3Schema)['net_version']> {
  return () => options.chainId.toString(10);
}
