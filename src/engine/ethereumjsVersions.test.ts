// The start-up check of the @ethereumjs versions the engine's patches were written for: the
// installed packages pass, any other version of any of them stops the start with each named.
import { describe, expect, it } from 'vitest';
import { ServiceError } from '../rpc/errors.js';
import { ETHEREUMJS_VERSION, assertEthereumjsVersions, installedVersion } from './ethereumjsVersions.js';

describe('assertEthereumjsVersions', () => {
  it('default: the installed packages are the pinned version', () => {
    expect(installedVersion('evm')).toBe(ETHEREUMJS_VERSION);
    expect(installedVersion('statemanager')).toBe(ETHEREUMJS_VERSION);
    expect(() => assertEthereumjsVersions()).not.toThrow();
  });

  it('error: another version of any package is refused, each named', () => {
    const versions: Record<string, string> = { evm: '10.1.4', mpt: '11.0.0' };
    const check = () => assertEthereumjsVersions((name) => versions[name] ?? ETHEREUMJS_VERSION);
    expect(check).toThrow(ServiceError);
    expect(check).toThrow('unsupported @ethereumjs versions: @ethereumjs/evm 10.1.4, @ethereumjs/mpt 11.0.0');
  });
});
