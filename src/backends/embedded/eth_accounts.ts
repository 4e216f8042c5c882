// eth_accounts: the dev accounts eth_sendTransaction can sign for.
import type { ethSchema } from '../../rpc/schema/eth.js';
import type { ChainMethodDeps } from './chainMethodDeps.js';
import type { MethodHandler } from './methodTable.js';

export function eth_accounts({ chain }: ChainMethodDeps): MethodHandler<(typeof ethSchema)['eth_accounts']> {
  return () => chain.accounts.map((a) => a.address.toString());
}
