// eth_accounts: the dev accounts eth_sendTransaction can sign for, then (as anvil lists them) the
// impersonated addresses it may send from.
import { bytesToHex } from '../../rpc/hex.js';
import type { ethSchema } from '../../rpc/schema/eth.js';
import type { ChainMethodDeps } from './chainMethodDeps.js';
import type { MethodHandler } from './methodTable.js';

export function eth_accounts({ chain }: ChainMethodDeps): MethodHandler<(typeof ethSchema)['eth_accounts']> {
  return () => {
    const dev = chain.accounts.map((a) => a.address.toString());
    const known = new Set(dev);
    return [...dev, ...chain.impersonatedAddresses().map(bytesToHex).filter((a) => !known.has(a))];
  };
}
