// Derives the dev chain's funded accounts from a BIP-39 mnemonic at m/44'/60'/0'/0/i, the same
// keys anvil and hardhat print for the default mnemonic.
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync, validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { type Address, createAddressFromPrivateKey } from '@ethereumjs/util';
import { ServiceError } from '../../rpc/errors.js';

export interface DevAccount {
  address: Address;
  /** 32-byte secp256k1 key. Never log it. */
  privateKey: Uint8Array;
}

/** The first `count` accounts of `mnemonic`. Throws ServiceError on an invalid mnemonic. */
export function deriveDevAccounts(mnemonic: string, count: number): DevAccount[] {
  if (!validateMnemonic(mnemonic, wordlist)) throw new ServiceError('invalid dev account mnemonic');
  const root = HDKey.fromMasterSeed(mnemonicToSeedSync(mnemonic));
  const accounts: DevAccount[] = [];
  for (let i = 0; i < count; i++) {
    const privateKey = root.derive(`m/44'/60'/0'/0/${i}`).privateKey;
    if (!privateKey) throw new ServiceError(`could not derive dev account ${i}`);
    accounts.push({ address: createAddressFromPrivateKey(privateKey), privateKey });
  }
  return accounts;
}
