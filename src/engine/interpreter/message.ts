// The interpreter's vocabulary: a message (call or create) in, its result out, the block and
// transaction context it runs in, the frame hooks, and ethereumjs's error texts it reproduces.
import type { PrecompileInput } from '@ethereumjs/evm';

/** ethereumjs's error texts (EVMError.errorMessages), which callers map to geth's. */
export const Errors = {
  OUT_OF_GAS: 'out of gas',
  STACK_UNDERFLOW: 'stack underflow',
  STACK_OVERFLOW: 'stack overflow',
  INVALID_JUMP: 'invalid JUMP',
  INVALID_OPCODE: 'invalid opcode',
  REVERT: 'revert',
  STATIC: 'static state change',
  CREATE_COLLISION: 'create collision',
  CODESIZE: 'code size to deposit exceeds maximum code size',
  INVALID_BYTECODE: 'invalid bytecode deployed',
  INITCODE_SIZE: 'initcode exceeds max initcode size',
} as const;

/** A precompile from ethereumjs, called synchronously. */
export type SyncPrecompile = (input: PrecompileInput) => unknown;

/** Block and transaction context of an execution. */
export interface ExecutionEnv {
  origin: bigint;
  gasPrice: bigint;
  coinbase: bigint;
  timestamp: bigint;
  number: bigint;
  prevRandao: bigint;
  gasLimit: bigint;
  chainId: bigint;
  baseFee: bigint;
  blobBaseFee: bigint;
  /** Active precompiles by address; only 0x01–0x09 run here (they are synchronous). */
  precompiles: Map<bigint, SyncPrecompile>;
  /** What ethereumjs's precompiles read besides the data (common, _EVM). */
  precompileContext: Omit<PrecompileInput, 'data' | 'gasLimit'>;
}

export type MessageKind = 'CALL' | 'CALLCODE' | 'DELEGATECALL' | 'STATICCALL' | 'CREATE' | 'CREATE2';

export interface Message {
  kind: MessageKind;
  caller: bigint;
  /** The account whose storage and balance the frame runs against. */
  address: bigint;
  /** Whose code runs (the callee for CALL/STATICCALL, the target for CALLCODE/DELEGATECALL). */
  codeAddress: bigint;
  value: bigint;
  /** Value moves from caller to address (CALL, CALLCODE, creates). */
  transfer: boolean;
  data: Uint8Array;
  /** Init code of a create. */
  initCode?: Uint8Array;
  gas: number;
  depth: number;
  isStatic: boolean;
}

export interface MessageResult {
  /** undefined on success; 'revert' or ethereumjs's halt text otherwise. */
  error: string | undefined;
  gasLeft: number;
  output: Uint8Array;
}

/** Optional observer of frames (the recorder's hook point); absent means no cost. */
export interface FrameHooks {
  /** A new run begins (the driver restarts an execution after loading state): forget the last one. */
  reset(): void;
  enter(message: Message): void;
  exit(message: Message, result: MessageResult): void;
}
