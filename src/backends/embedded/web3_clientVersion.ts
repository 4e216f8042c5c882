// web3_clientVersion: the service's name and version.
import type { web3Schema } from '../../rpc/schema/web3.js';
import type { MethodHandler } from './methodTable.js';
import type { Web3NamespaceOptions } from './web3Namespace.js';

export function web3_clientVersion(options: Web3NamespaceOptions): MethodHandler<(typeof web3Schema)['web3_clientVersion']> {
  return () => options.clientVersion;
}
