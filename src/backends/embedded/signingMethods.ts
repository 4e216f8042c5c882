// eth_sign, personal_sign (EIP-191), eth_signTypedData_v4 (EIP-712) and eth_signTransaction with
// the dev accounts' keys. Signatures are deterministic (RFC 6979), r ‖ s ‖ v with v 27/28, byte for
// byte anvil's. Impersonated and unknown addresses have no key: anvil's "No Signer available".
import { eip191Signer, signTyped } from 'micro-eth-signer';
import { bytesToUnprefixedHex } from '@ethereumjs/util';
import { InvalidParamsError } from '../../rpc/errors.js';
import { type Hex, bytesToHex, hexToBytes } from '../../rpc/hex.js';
import type { signingSchema } from '../../rpc/schema/signing.js';
import type { ChainMethodDeps } from './chainMethodDeps.js';
import type { HandlersFor } from './methodTable.js';
import { transactionRequestFromRpc } from './rpcRequest.js';

export function createSigningHandlers({ chain }: ChainMethodDeps): HandlersFor<typeof signingSchema> {
  function keyOf(address: Hex): Uint8Array {
    const wanted = address.slice(2);
    const account = chain.accounts.find((a) => bytesToUnprefixedHex(a.address.bytes) === wanted);
    if (!account) throw new InvalidParamsError('No Signer available');
    return account.privateKey;
  }
  const signMessage = (message: Uint8Array, address: Hex): Hex => eip191Signer.sign(message, keyOf(address), false) as Hex;
  return {
    eth_sign: ([address, message]) => signMessage(message, address),
    personal_sign: ([message, address]) => signMessage(message, address),
    eth_signTypedData_v4([address, typedData]) {
      const key = keyOf(address);
      try {
        return signTyped(typedData as unknown as Parameters<typeof signTyped>[0], key, false);
      } catch (error) {
        throw new InvalidParamsError(`eth_signTypedData_v4: invalid typed data: ${error instanceof Error ? error.message : String(error)}`);
      }
    },
    async eth_signTransaction([request]) {
      if (request.from) keyOf(request.from);
      return bytesToHex(await chain.signTransaction(transactionRequestFromRpc(request)));
    },
  };
}

/** Test support: the address a personal_sign signature recovers to. */
export function recoverPersonalSigner(signature: Hex, message: Hex): Hex {
  return eip191Signer.recoverAddress(signature, hexToBytes(message)).toLowerCase() as Hex;
}
