// A cheap per-opcode hook: instead of the generic `step` event (which copies the stack and memory
// on every opcode), the probe wraps the handlers of only the few opcodes a recorder cares about
// (CALL*, CREATE*, SELFDESTRUCT, LOG*, SLOAD/SSTORE, ...) in the EVM's opcode table, for the
// duration of one execution. The wrapped handler runs after the opcode's gas was charged, like
// geth's OnOpcode, so a hook never sees an opcode that failed its gas check.
//
// This reaches into `EVM._opcodeMap`, a protected field of @ethereumjs/evm 10.1.3 (pinned); the
// interpreter reads it on every run, so replacing entries takes effect for the next frame.
import type { EVM } from '@ethereumjs/evm';
import type { Address } from '@ethereumjs/util';

/** The slice of ethereumjs's RunState that hooks use. */
export interface ProbeRunState {
  opCode: number;
  programCounter: number;
  stack: { peek(n?: number): bigint[]; length: number };
  memory: { read(offset: number, size: number, avoidCopy?: boolean): Uint8Array };
  messageGasLimit?: bigint;
  returnBytes: Uint8Array;
  env: {
    address: Address;
    depth: number;
    contract: { balance: bigint; nonce: bigint };
  };
  interpreter: { getAddress(): Address; getGasLeft(): bigint };
}

/** Around-advice for one opcode: call `next()` to run the real handler. */
export type OpcodeHook = (runState: ProbeRunState, next: () => Promise<void> | void) => Promise<void> | void;

/**
 * Runs before an opcode's dynamic-gas handler, i.e. also for an attempt that then fails its gas
 * check (geth's OnOpcode sees those too). Only opcodes with dynamic gas can carry one.
 */
export type GasHook = (runState: ProbeRunState) => Promise<void> | void;

interface OpcodeEntry {
  opcodeInfo: { isAsync: boolean; code: number };
  opHandler: (runState: unknown, common: unknown) => unknown;
  gasHandler?: unknown;
}

type GasHandler = (runState: unknown, gas: bigint, common: unknown) => Promise<bigint> | bigint;

interface EvmWithOpcodeMap {
  _opcodeMap: OpcodeEntry[];
}

function cloneAsync(info: OpcodeEntry['opcodeInfo']): OpcodeEntry['opcodeInfo'] {
  const copy = Object.create(Object.getPrototypeOf(info) as object) as OpcodeEntry['opcodeInfo'];
  Object.assign(copy, info);
  copy.isAsync = true;
  return copy;
}

/** True if this EVM exposes the opcode table the probe patches. */
export function isProbeSupported(evm: EVM): boolean {
  return Array.isArray((evm as unknown as EvmWithOpcodeMap)._opcodeMap);
}

/**
 * Installs `hooks` (opcode byte → hook) into the EVM's opcode table. Returns the function that
 * restores the original table. Opcodes not active at the current fork are left alone.
 */
export function installOpcodeProbe(
  evm: EVM,
  hooks: ReadonlyMap<number, OpcodeHook>,
  gasHooks: ReadonlyMap<number, GasHook> = new Map(),
): () => void {
  const target = evm as unknown as EvmWithOpcodeMap;
  const original = target._opcodeMap;
  const patched = original.slice();
  const invalid = original[0xfe];
  for (const code of new Set([...hooks.keys(), ...gasHooks.keys()])) {
    const entry = original[code];
    // Undefined opcodes share the INVALID entry; only 0xfe itself may be hooked through it.
    if (!entry || (entry === invalid && code !== 0xfe)) continue;
    const hook = hooks.get(code);
    const gasHook = gasHooks.get(code);
    const handler = entry.opHandler;
    const isAsync = entry.opcodeInfo.isAsync;
    const gasHandler = entry.gasHandler as GasHandler | undefined;
    patched[code] = {
      opcodeInfo: hook ? cloneAsync(entry.opcodeInfo) : entry.opcodeInfo,
      gasHandler:
        gasHook && gasHandler
          ? async (runState: unknown, gas: bigint, common: unknown) => {
              await gasHook(runState as ProbeRunState);
              return gasHandler(runState, gas, common);
            }
          : entry.gasHandler,
      opHandler: hook
        ? (runState: unknown, common: unknown) =>
            hook(runState as ProbeRunState, () =>
              isAsync ? (handler(runState, common) as Promise<void>) : void handler(runState, common),
            )
        : handler,
    };
  }
  target._opcodeMap = patched;
  return () => {
    if (target._opcodeMap === patched) target._opcodeMap = original;
  };
}
