// Halts geth reaches only after charging an opcode's gas, which ethereumjs raises in the gas
// handler before charging: a write in a static context (geth refuses it in the opcode's execute
// function) and a RETURNDATACOPY past the return data. At such an attempt this works out whether
// geth would already have failed for gas, so the frame gets geth's error. Reads only.
import { Address, bigIntToBytes, setLengthLeft } from '@ethereumjs/util';
import { OP } from './opcodeInfo.js';

/** The parts of ethereumjs's run state the check reads. */
export interface StaticWriteRunState {
  opCode: number;
  stack: { peek(n?: number): bigint[] };
  returnBytes: Uint8Array;
  memoryWordCount: bigint;
  env: { address: Address; contract: { balance: bigint } };
  stateManager: { getAccount(address: Address): Promise<{ balance: bigint; nonce: bigint; isEmpty(): boolean } | undefined> };
  interpreter: {
    isStatic(): boolean;
    getGasLeft(): bigint;
    storageLoad(key: Uint8Array, original?: boolean, trackBAL?: boolean): Promise<Uint8Array>;
    journal: { isWarmedAddress(address: Uint8Array): boolean; isWarmedStorage(address: Uint8Array, slot: Uint8Array): boolean };
  };
}

/** What geth would fail with before the write or bounds check, if anything. */
export type GasFirstFailure = 'outOfGas' | 'reentrancySentry' | undefined;

const SENTRY = 2300n;
const COLD_ACCOUNT = 2600n;
const COLD_SLOT = 2100n;
const WARM = 100n;
const NEW_ACCOUNT = 25_000n;

const words = (bytes: bigint): bigint => (bytes + 31n) / 32n;
const memoryCost = (w: bigint): bigint => 3n * w + (w * w) / 512n;

/** Gas to expand memory over [offset, offset + length) (geth's memoryGasCost). */
function expansion(rs: StaticWriteRunState, offset: bigint, length: bigint): bigint {
  if (length === 0n) return 0n;
  const needed = words(offset + length);
  return needed > rs.memoryWordCount ? memoryCost(needed) - memoryCost(rs.memoryWordCount) : 0n;
}

async function isEmpty(rs: StaticWriteRunState, address: Address): Promise<boolean> {
  const account = await rs.stateManager.getAccount(address);
  return account === undefined || account.isEmpty();
}

const stackAddress = (word: bigint): Address => new Address(setLengthLeft(bigIntToBytes(word & ((1n << 160n) - 1n)), 20));

/** geth's gas for the write `rs` is about to attempt (EIP-2929 rules), or undefined for other ops. */
async function gethCost(rs: StaticWriteRunState): Promise<bigint | 'sentry' | undefined> {
  const op = rs.opCode;
  if (op >= OP.LOG0 && op <= OP.LOG4) {
    const [offset, length] = rs.stack.peek(2);
    return 375n * BigInt(op - OP.LOG0 + 1) + 8n * length! + expansion(rs, offset!, length!);
  }
  if (op === OP.SSTORE) {
    if (rs.interpreter.getGasLeft() <= SENTRY) return 'sentry';
    const [key, value] = rs.stack.peek(2);
    const slot = setLengthLeft(bigIntToBytes(key!), 32);
    const cold = rs.interpreter.journal.isWarmedStorage(rs.env.address.bytes, slot) ? 0n : COLD_SLOT;
    const word = async (original: boolean): Promise<bigint> => BigInt(`0x${Buffer.from(await rs.interpreter.storageLoad(slot, original, false)).toString('hex') || '0'}`);
    const [current, original] = [await word(false), await word(true)];
    if (value === current || original !== current) return cold + WARM;
    return cold + (original === 0n ? 20_000n : 2_900n);
  }
  if (op === OP.SELFDESTRUCT) {
    const beneficiary = stackAddress(rs.stack.peek(1)[0]!);
    const cold = rs.interpreter.journal.isWarmedAddress(beneficiary.bytes) ? 0n : COLD_ACCOUNT;
    const created = rs.env.contract.balance > 0n && (await isEmpty(rs, beneficiary)) ? NEW_ACCOUNT : 0n;
    return 5_000n + cold + created;
  }
  if (op === OP.CALL) {
    const [, to, value, inOffset, inLength, outOffset, outLength] = rs.stack.peek(7);
    if (value === 0n) return undefined;
    const target = stackAddress(to!);
    const cold = rs.interpreter.journal.isWarmedAddress(target.bytes) ? WARM : COLD_ACCOUNT;
    const memory = expansion(rs, inOffset!, inLength!) > expansion(rs, outOffset!, outLength!) ? expansion(rs, inOffset!, inLength!) : expansion(rs, outOffset!, outLength!);
    return cold + memory + 9_000n + ((await isEmpty(rs, target)) ? NEW_ACCOUNT : 0n);
  }
  if (op === OP.CREATE || op === OP.CREATE2) {
    const [, offset, length] = rs.stack.peek(3);
    const hashing = op === OP.CREATE2 ? 6n * words(length!) : 0n;
    return 32_000n + expansion(rs, offset!, length!) + 2n * words(length!) + hashing;
  }
  return undefined;
}

/** For an attempted write in a static context: the gas failure geth would report first, if any. */
export async function staticWriteGasFailure(rs: StaticWriteRunState): Promise<GasFirstFailure> {
  if (!rs.interpreter.isStatic()) return undefined;
  const cost = await gethCost(rs);
  if (cost === 'sentry') return 'reentrancySentry';
  return cost !== undefined && cost > rs.interpreter.getGasLeft() ? 'outOfGas' : undefined;
}

/** For a RETURNDATACOPY past the return data: `outOfGas` when geth's charge (3 + copy + memory) does not fit. */
export function returnDataCopyGasFailure(rs: StaticWriteRunState): GasFirstFailure {
  const [memOffset, dataOffset, length] = rs.stack.peek(3);
  if (dataOffset! + length! <= BigInt(rs.returnBytes.length)) return undefined;
  const cost = 3n + 3n * words(length!) + expansion(rs, memOffset!, length!);
  return cost > rs.interpreter.getGasLeft() ? 'outOfGas' : undefined;
}

/** Opcodes ethereumjs refuses in a static context inside their gas handler. */
export const STATIC_WRITE_OPS: readonly number[] = [OP.SSTORE, 0xa0, 0xa1, 0xa2, 0xa3, 0xa4, OP.SELFDESTRUCT, OP.CALL, OP.CREATE, OP.CREATE2];
