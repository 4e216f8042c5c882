// web3_sha3: keccak-256 of the given bytes.
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex } from '../../rpc/hex.js';
import type { web3Schema } from '../../rpc/schema/web3.js';
import type { MethodHandler } from './methodTable.js';

export function web3_sha3(): MethodHandler<(typeof web3Schema)['web3_sha3']> {
  return ([data]) => bytesToHex(keccak_256(data));
}
