// Pasted or uploaded lists, checked line by line before anything is sent: addresses for Address
// Activity, `contract[,token id]` for NFT filters. Bad lines are returned with their line number
// and reason so the form can show them.

export interface BadLine {
  line: number;
  text: string;
  problem: string;
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const TOKEN_ID = /^(0x[0-9a-fA-F]{1,64}|[0-9]{1,78})$/;

/** Splits on newlines, commas, spaces or semicolons; blank entries are skipped. */
export function parseAddresses(text: string): { addresses: string[]; bad: BadLine[] } {
  const addresses: string[] = [];
  const bad: BadLine[] = [];
  const seen = new Set<string>();
  text.split(/\r?\n/).forEach((raw, i) => {
    for (const entry of raw.split(/[\s,;]+/)) {
      const value = entry.trim().replace(/^["']|["']$/g, '');
      if (!value) continue;
      if (!ADDRESS.test(value)) {
        bad.push({ line: i + 1, text: value.slice(0, 80), problem: /^0x[0-9a-fA-F]*$/.test(value) ? `has ${value.length - 2} hex digits, needs 40` : 'is not a 0x address' });
        continue;
      }
      const key = value.toLowerCase();
      if (seen.has(key)) continue;
      seen.add(key);
      addresses.push(value);
    }
  });
  return { addresses, bad };
}

export function parseNftFilters(text: string): { filters: { contract_address: string; token_id?: string }[]; bad: BadLine[] } {
  const filters: { contract_address: string; token_id?: string }[] = [];
  const bad: BadLine[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (!line) return;
    const [contract, tokenId, ...extra] = line.split(/[\s,;]+/);
    if (extra.length) return bad.push({ line: i + 1, text: line.slice(0, 80), problem: 'expected contract[,token id]' });
    if (contract !== '*' && !ADDRESS.test(contract!)) return bad.push({ line: i + 1, text: line.slice(0, 80), problem: 'contract is not a 0x address (or *)' });
    if (tokenId !== undefined && !TOKEN_ID.test(tokenId)) return bad.push({ line: i + 1, text: line.slice(0, 80), problem: 'token id is not a decimal or 0x number' });
    filters.push(tokenId === undefined ? { contract_address: contract! } : { contract_address: contract!, token_id: tokenId });
  });
  return { filters, bad };
}
