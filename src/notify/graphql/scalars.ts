// The scalars of the Custom webhook schema, encoded as the hosted provider sends them: hashes,
// addresses and byte strings as lower-case hex, `BigInt` as a hex quantity, `Long` as a JSON number.
import { GraphQLError, GraphQLScalarType, Kind, type ValueNode } from 'graphql';

function hexScalar(name: string, description: string, pattern: RegExp, expected: string): GraphQLScalarType {
  const check = (value: unknown): string => {
    if (typeof value !== 'string' || !pattern.test(value)) throw new GraphQLError(`${name} must be ${expected}, got ${JSON.stringify(value)}`);
    return value.toLowerCase();
  };
  return new GraphQLScalarType({
    name,
    description,
    serialize: (value) => (typeof value === 'string' ? value.toLowerCase() : check(value)),
    parseValue: check,
    parseLiteral: (node: ValueNode) => {
      if (node.kind !== Kind.STRING) throw new GraphQLError(`${name} must be a string literal`, { nodes: node });
      return check(node.value);
    },
  });
}

export const Bytes32Scalar = hexScalar('Bytes32', '32 bytes as 0x-prefixed hex (a hash or topic).', /^0x[0-9a-fA-F]{64}$/, '0x followed by 64 hex digits');
export const AddressScalar = hexScalar('Address', '20 bytes as 0x-prefixed hex; matched case-insensitively.', /^0x[0-9a-fA-F]{40}$/, '0x followed by 40 hex digits');
export const BytesScalar = hexScalar('Bytes', 'Arbitrary bytes as 0x-prefixed hex.', /^0x([0-9a-fA-F]{2})*$/, 'even-length 0x hex');

function toBigInt(value: unknown): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  if (typeof value === 'string' && /^(0x[0-9a-fA-F]+|[0-9]+)$/.test(value)) return BigInt(value);
  throw new GraphQLError(`expected an integer (number, decimal or 0x hex string), got ${JSON.stringify(value)}`);
}

/** Arbitrary-size integers; output as a `0x` hex quantity, input as hex or decimal. */
export const BigIntScalar = new GraphQLScalarType({
  name: 'BigInt',
  description: 'Arbitrary-size integer: a 0x hex quantity on output; hex or decimal on input.',
  serialize: (value) => `0x${toBigInt(value).toString(16)}`,
  parseValue: toBigInt,
  parseLiteral: (node) => {
    if (node.kind === Kind.INT || node.kind === Kind.STRING) return toBigInt(node.value);
    throw new GraphQLError('BigInt must be an integer or string literal', { nodes: node });
  },
});

/** 64-bit integers (block numbers, gas, timestamps); output as a JSON number. */
export const LongScalar = new GraphQLScalarType({
  name: 'Long',
  description: '64-bit integer: a JSON number on output; number, decimal or hex string on input.',
  serialize: (value) => Number(toBigInt(value)),
  parseValue: (value) => toBigInt(value),
  parseLiteral: (node) => {
    if (node.kind === Kind.INT || node.kind === Kind.STRING) return toBigInt(node.value);
    throw new GraphQLError('Long must be an integer or string literal', { nodes: node });
  },
});
