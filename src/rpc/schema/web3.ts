// Runtime schemas of the web3_* and net_* methods.
import { defineMethod, param } from './defineMethod.js';
import { Data } from './primitives.js';

export const web3Schema = {
  web3_clientVersion: defineMethod(),
  web3_sha3: defineMethod(param('data', Data)),
  net_version: defineMethod(),
  net_listening: defineMethod(),
  net_peerCount: defineMethod(),
} as const;
