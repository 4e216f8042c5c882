// The trace pool's waiting room: one FIFO per client key, served round-robin between keys (the key
// served least recently goes next, remembered also while a key has nothing waiting, since workers
// take jobs ahead of need), with each key limited to its share of the total, so one key's flood
// cannot keep another key out.
// Pure data structure: the pool (tracePool.ts) decides what a refusal or a push-out answers.

export interface FairJobQueueOptions {
  /** Most items waiting in all queues together. */
  limit: number;
  /** A key may always hold this many, whatever its share (default 8). */
  minShare?: number;
}

/** The outcome of {@link FairJobQueue.push}. */
export type PushResult<T> =
  | { ok: true; /** Another key's newest item, taken out to make room (it held more than its share). */ pushedOut?: T }
  | { ok: false; /** `share`: the key holds its share; `full`: the total is full and no key holds more than this one. */ reason: 'share' | 'full'; /** What the key may hold now. */ share: number };

export interface FairJobQueue<T> {
  /** Items waiting. */
  readonly size: number;
  /** Keys with items waiting. */
  readonly keys: number;
  /**
   * Queues `item` for `key`. A key holds at most max(minShare, floor(limit / active keys))
   * items (never more than the limit), counting itself among the active keys; when the total is full and `key` is under
   * its share, the newest item of the key holding the most is pushed out to make room.
   */
  push(key: string, item: T): PushResult<T>;
  /**
   * The next item: the oldest of the key whose turn it is: keys take turns, the one served least
   * recently first (a key never served, or not among the last SERVED_MEMORY served, before any
   * other; between such keys, the first to arrive).
   */
  shift(): T | undefined;
  /** Takes `item` out of `key`'s queue (e.g. its client went away); false if it was not waiting. */
  remove(key: string, item: T): boolean;
  /** Empties every queue; returns what waited. */
  drain(): T[];
  /** Every waiting item, key by key (for counts; the queue must not change while iterating). */
  waiting(): IterableIterator<T>;
}

/** How many keys the queue remembers serving (their turn order), with or without items waiting. */
const SERVED_MEMORY = 4096;

export function createFairJobQueue<T>(options: FairJobQueueOptions): FairJobQueue<T> {
  const minShare = options.minShare ?? 8;
  // Keys with items waiting, in the order their items came; which goes next is `served`'s to say.
  const queues = new Map<string, T[]>();
  /** When each key was last served (a count of shifts), oldest first. */
  const served = new Map<string, number>();
  let shifts = 0;
  let size = 0;

  const shareOf = (key: string): number =>
    Math.min(options.limit, Math.max(minShare, Math.floor(options.limit / (queues.size + (queues.has(key) ? 0 : 1)))));

  /** The key holding the most items (the first such in turn order). */
  function largest(): [string, T[]] | undefined {
    let found: [string, T[]] | undefined;
    for (const entry of queues) if (!found || entry[1].length > found[1].length) found = entry;
    return found;
  }

  function take(key: string, queue: T[], fromEnd: boolean): T {
    const item = fromEnd ? queue.pop()! : queue.shift()!;
    size--;
    if (queue.length === 0) queues.delete(key);
    return item;
  }

  return {
    get size() {
      return size;
    },
    get keys() {
      return queues.size;
    },
    push(key, item) {
      const share = shareOf(key);
      const own = queues.get(key);
      const held = own?.length ?? 0;
      // A key alone in a full queue is simply told the queue is full.
      if (held >= share) return { ok: false, reason: size >= options.limit && queues.size === 1 ? 'full' : 'share', share };
      let pushedOut: T | undefined;
      if (size >= options.limit) {
        const [hog, hogQueue] = largest()!;
        // Only a key above this one's holding (so above its own share) gives up a place.
        if (hog === key || hogQueue.length <= held + 1) return { ok: false, reason: 'full', share };
        pushedOut = take(hog, hogQueue, true);
      }
      if (own) own.push(item);
      else queues.set(key, [item]);
      size++;
      return pushedOut === undefined ? { ok: true } : { ok: true, pushedOut };
    },
    shift() {
      let next: [string, T[]] | undefined;
      let nextServed = Infinity;
      for (const entry of queues) {
        const at = served.get(entry[0]) ?? -1;
        if (at < nextServed) [next, nextServed] = [entry, at];
      }
      if (!next) return undefined;
      const [key, queue] = next;
      // Its turn is over: the key goes to the back of the line.
      served.delete(key);
      served.set(key, shifts++);
      if (served.size > SERVED_MEMORY) served.delete(served.keys().next().value!);
      return take(key, queue, false);
    },
    remove(key, item) {
      const queue = queues.get(key);
      const index = queue ? queue.indexOf(item) : -1;
      if (index < 0) return false;
      queue!.splice(index, 1);
      size--;
      if (queue!.length === 0) queues.delete(key);
      return true;
    },
    drain() {
      const all = [...queues.values()].flat();
      queues.clear();
      size = 0;
      return all;
    },
    *waiting() {
      for (const queue of queues.values()) yield* queue;
    },
  };
}
