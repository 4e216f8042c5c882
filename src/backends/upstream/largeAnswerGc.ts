// Gives memory back soon after a very large upstream answer. Such an answer is held several times
// over while it passes through (its bytes, its text, the parsed value, the answer written to the
// client: about 5x its size), and all of it is garbage once sent; but V8 starts a major collection
// from allocation pressure, which a quiet process may not see for a long time, so the pages stay
// mapped (a 60 MiB answer kept the service 260-350 MiB larger for the 20 s a test waited).
// Half a second after the last answer above the threshold, one major collection runs, started
// asynchronously (concurrent marking, so the event loop is not held for the whole of it).
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Answers at least this large schedule a collection. */
export const LARGE_ANSWER_BYTES = 16 * 1024 * 1024;
const DELAY_MS = 500;

type Collect = (options: { type: 'major'; execution: 'async' }) => unknown;
let collect: Collect | undefined | null = null;
let timer: NodeJS.Timeout | undefined;

/** V8's collector, exposed once for this process (undefined where the runtime refuses). */
function collector(): Collect | undefined {
  if (collect === null) {
    try {
      setFlagsFromString('--expose-gc');
      collect = runInNewContext('gc') as Collect;
    } catch {
      collect = undefined;
    }
  }
  return collect;
}

/** Notes an answer of `bytes`; a large one schedules a major collection shortly after (at most one pending). */
export function noteAnswerSize(bytes: number): void {
  if (bytes < LARGE_ANSWER_BYTES || timer !== undefined) return;
  timer = setTimeout(() => {
    timer = undefined;
    collector()?.({ type: 'major', execution: 'async' });
  }, DELAY_MS);
  timer.unref();
}
