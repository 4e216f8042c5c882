// Child process for the persistence tests: opens a chain on argv[2] and either runs the
// deterministic scenario then idles ("scenario"), or mines transactions until killed ("burst"),
// printing one line per committed step so the parent knows when to SIGKILL it. "journaled" sends
// as eth_sendRawTransaction does (answered once journaled, before the block is written) and prints
// one line per acknowledged transaction.
import { createDevChain } from '../devChain.js';
import { SCENARIO_CLOCK_MS, burstTransaction, runPersistenceScenario } from './persistenceScenario.js';

const [dataDir, mode] = process.argv.slice(2);
if (!dataDir || (mode !== 'scenario' && mode !== 'burst' && mode !== 'journaled')) {
  process.stderr.write('usage: chainWriter <dataDir> scenario|burst|journaled\n');
  process.exit(2);
}
const chain = await createDevChain({ dataDir, clock: () => SCENARIO_CLOCK_MS });
const counterAddress = await runPersistenceScenario(chain);
process.stdout.write('ready\n');
if (mode === 'burst') {
  for (let nonce = 0n; ; nonce++) {
    await chain.sendRawTransaction(burstTransaction(chain, nonce, counterAddress));
    process.stdout.write(`mined ${nonce + 1n}\n`);
  }
} else if (mode === 'journaled') {
  for (let nonce = 0n; ; nonce++) {
    await chain.sendRawTransaction(burstTransaction(chain, nonce, counterAddress), { journaled: true });
    process.stdout.write(`acknowledged ${nonce + 1n}\n`);
  }
} else {
  setInterval(() => undefined, 60_000);
}
