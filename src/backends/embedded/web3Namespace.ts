// web3_* and net_* methods: client version, keccak, and the network id (the chain id in decimal).
import { web3Schema } from '../../rpc/schema/web3.js';
import { type Namespace, defineNamespace } from './methodTable.js';
import { net_listening } from './net_listening.js';
import { net_peerCount } from './net_peerCount.js';
import { net_version } from './net_version.js';
import { web3_clientVersion } from './web3_clientVersion.js';
import { web3_sha3 } from './web3_sha3.js';

export interface Web3NamespaceOptions {
  /** e.g. `tracehook/v0.1.0`. */
  clientVersion: string;
  chainId: bigint;
}

export function createWeb3Namespace(options: Web3NamespaceOptions): Namespace<typeof web3Schema> {
  return defineNamespace(web3Schema, {
    web3_clientVersion: web3_clientVersion(options),
    web3_sha3: web3_sha3(),
    net_version: net_version(options),
    net_listening: net_listening(),
    net_peerCount: net_peerCount(),
  });
}
