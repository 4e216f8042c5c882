import { Hardfork } from '@ethereumjs/common';
import { createVM } from '@ethereumjs/vm';
import { describe, expect, it } from 'vitest';
import { installFastEipLookup } from './fastEipLookup.js';
import { createPinnedCommon } from './gethConfig.js';

describe('installFastEipLookup', () => {
  it('behavior: answers exactly as ethereumjs, also after a fork change', async () => {
    const reference = createPinnedCommon({ chainId: 1n, hardfork: Hardfork.Cancun });
    const vm = await createVM({ common: createPinnedCommon({ chainId: 1n, hardfork: Hardfork.Cancun }) });
    installFastEipLookup(vm);
    installFastEipLookup(vm);
    const answers = (c: { isActivatedEIP(eip: number): boolean }) => Array.from({ length: 9000 }, (_, eip) => c.isActivatedEIP(eip));
    expect(answers(vm.common)).toEqual(answers(reference));
    expect(vm.common.isActivatedEIP(7702)).toBe(false);
    vm.common.setHardfork(Hardfork.Prague);
    reference.setHardfork(Hardfork.Prague);
    expect(answers(vm.common)).toEqual(answers(reference));
    expect(vm.common.isActivatedEIP(7702)).toBe(true);
  });
});
