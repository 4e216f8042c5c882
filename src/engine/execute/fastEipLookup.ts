// Makes `Common.isActivatedEIP` a Set lookup on one VM's Common. ethereumjs answers it with an
// Array.includes over every active EIP, several times per opcode; a CPU profile of the
// interpreter puts ~30% of a tight loop there (../shared/conformance/ETHEREUMJS-NOTES.md), and the
// Set brings ~1.4x on such loops. The answer is unchanged: the Set is rebuilt when the fork changes.
import type { VM } from '@ethereumjs/vm';

const INSTALLED = Symbol('fastEipLookup');

interface CommonInternals {
  _activatedEIPsCache: number[];
  isActivatedEIP(eip: number): boolean;
  events: { on(event: 'hardforkChanged', listener: () => void): void };
  [INSTALLED]?: true;
}

/** Installs the Set-backed lookup on `vm`'s Common (idempotent; the VM must own its Common). */
export function installFastEipLookup(vm: VM): void {
  const common = vm.common as unknown as CommonInternals;
  if (common[INSTALLED] || !Array.isArray(common._activatedEIPsCache)) return;
  let active = new Set(common._activatedEIPsCache);
  common.events.on('hardforkChanged', () => {
    active = new Set(common._activatedEIPsCache);
  });
  common.isActivatedEIP = (eip: number) => active.has(eip);
  common[INSTALLED] = true;
}
