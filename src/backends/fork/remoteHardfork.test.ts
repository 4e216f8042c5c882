// The remote chain's rules for fork execution: known chain ids by their schedule, others by header
// fields; and end to end, an anvil upstream on an older fork (London, no PUSH0) executed under
// London's rules although the network's configured hardfork is Prague.
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnvil, type AnvilProcess } from '../../testing/startAnvil.js';
import { createNetworkUpstreams, type NetworkUpstreams } from '../upstream/networkUpstreams.js';
import { createForkExecutor } from './forkExecutor.js';
import { remoteHardfork, type RemoteHeader } from './remoteHardfork.js';

const H = '0x' + '11'.repeat(32);
const header = (fields: Partial<RemoteHeader>): RemoteHeader => ({ number: '0x10', timestamp: '0x10', difficulty: '0x1', ...fields });

describe('remoteHardfork', () => {
  it('behavior: known chain ids follow their published schedule, whatever is configured', () => {
    expect(remoteHardfork(1n, header({ number: '0xb71b00', timestamp: '0x0' }), 'prague')).toBe('muirGlacier'); // block 12,000,000 (Berlin came at 12,244,000)
    expect(remoteHardfork(1n, header({ number: '0x1312d00', timestamp: '0x6686b280' }), 'prague')).toBe('cancun'); // 20,000,000, July 2024
    expect(remoteHardfork(1n, header({ number: '0x1600000', timestamp: '0x68b00000' }), 'london')).toBe('prague'); // 2025-08
  });

  it('behavior: other chains by the newest header field; the configured fork kept only inside the range the header allows', () => {
    const prague = header({ baseFeePerGas: '0x7', difficulty: '0x0', withdrawalsRoot: H, blobGasUsed: '0x0', excessBlobGas: '0x0', parentBeaconBlockRoot: H, requestsHash: H });
    expect(remoteHardfork(31337n, prague, 'prague')).toBe('prague');
    expect(remoteHardfork(31337n, prague, 'osaka')).toBe('osaka');
    expect(remoteHardfork(31337n, prague, 'cancun')).toBe('prague');
    const cancun = { ...prague, requestsHash: undefined };
    expect(remoteHardfork(31337n, cancun, 'prague')).toBe('cancun');
    expect(remoteHardfork(31337n, { ...cancun, blobGasUsed: null, excessBlobGas: null, parentBeaconBlockRoot: null }, 'prague')).toBe('shanghai');
    const merged = header({ baseFeePerGas: '0x7', difficulty: '0x0' });
    expect(remoteHardfork(31337n, merged, 'prague')).toBe('paris');
    expect(remoteHardfork(31337n, header({ baseFeePerGas: '0x7' }), 'prague')).toBe('london');
    expect(remoteHardfork(31337n, header({ baseFeePerGas: '0x7' }), 'grayGlacier')).toBe('grayGlacier');
    expect(remoteHardfork(31337n, header({}), 'prague')).toBe('berlin');
    expect(remoteHardfork(31337n, header({}), 'istanbul')).toBe('istanbul');
  });
});

describe('fork execution on an older remote fork', () => {
  let anvil: AnvilProcess;
  let net: NetworkUpstreams;
  beforeAll(async () => {
    anvil = await startAnvil(['--hardfork', 'london']);
    net = createNetworkUpstreams({ network: 'LONDON', upstreams: [{ url: anvil.url }], logger: pino({ level: 'silent' }) });
    await net.start();
  }, 30_000);
  afterAll(async () => {
    net?.close();
    await anvil?.stop();
  });

  it("behavior: a PUSH0 creation fails as on the remote (London), not as the configured Prague would run it", async () => {
    const ctx = { requestId: 't', signal: new AbortController().signal };
    const upstream = { call: (m: string, p: unknown[]) => net.backend.call(m, p, ctx) };
    // anvil's genesis header carries blob gas fields whatever its fork; its mined London blocks do not.
    await upstream.call('evm_mine', []);
    // PUSH0 PUSH0 RETURN: an empty contract on Shanghai and later, an invalid opcode before.
    const create = { from: '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266', data: '0x5f5ff3', gas: '0x100000' };
    const remote = (await upstream.call('debug_traceCall', [create, 'latest', { tracer: 'callTracer' }])) as { error?: string };
    expect(remote.error).toMatch(/invalid opcode|NotActivated|opcode/i);
    const executor = createForkExecutor({ chainId: () => 31337n, hardfork: 'prague' });
    // Answers are serialised JSON (the renderers' raw output): read them back as the wire would.
    const json = (answer: unknown) => JSON.parse(JSON.stringify(answer)) as unknown;
    const executed = json(await executor.run('debug_traceCall', [create, 'latest', { tracer: 'callTracer' }], upstream, ctx)) as { error?: string };
    expect(executed.error).toBe('invalid opcode: PUSH0');
    const parity = json(await executor.run('trace_call', [create, ['trace'], 'latest'], upstream, ctx)) as { trace: Array<{ error?: string }> };
    expect(parity.trace[0]!.error).toBe('Bad instruction');
  }, 30_000);
});
