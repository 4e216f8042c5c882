// eth_getProof (EIP-1186): account and storage Merkle proofs from the state trie at a block.
import { bytesToBigInt } from '@ethereumjs/util';
import { bigIntToWordHex, hexToBigInt, hexToBytes, quantityToHex } from '../../rpc/hex.js';
import type { ethSchema } from '../../rpc/schema/eth.js';
import type { ChainMethodDeps } from './chainMethodDeps.js';
import type { MethodHandler } from './methodTable.js';
import { requireBlock } from './requireBlock.js';

export function eth_getProof({ chain }: ChainMethodDeps): MethodHandler<(typeof ethSchema)['eth_getProof']> {
  return async ([address, storageKeys, block]) => {
    const resolved = await requireBlock(chain, block);
    const slots = storageKeys.map((k) => hexToBytes(bigIntToWordHex(k)));
    const proof = await chain.getProof(hexToBytes(address), slots, resolved);
    return {
      address: proof.address,
      balance: quantityToHex(hexToBigInt(proof.balance)),
      codeHash: proof.codeHash,
      nonce: quantityToHex(hexToBigInt(proof.nonce)),
      storageHash: proof.storageHash,
      accountProof: proof.accountProof,
      storageProof: proof.storageProof.map((p, i) => ({
        key: bigIntToWordHex(storageKeys[i]!),
        value: quantityToHex(bytesToBigInt(hexToBytes(p.value === '0x0' ? '0x' : p.value))),
        proof: p.proof,
      })),
    };
  };
}
