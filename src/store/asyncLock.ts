// A FIFO async mutex: callers run one at a time in the order they asked.

export interface AsyncLock {
  run<T>(fn: () => Promise<T>): Promise<T>;
}

export function createAsyncLock(): AsyncLock {
  let tail: Promise<unknown> = Promise.resolve();
  return {
    run<T>(fn: () => Promise<T>): Promise<T> {
      const result = tail.then(fn, fn);
      tail = result.catch(() => undefined);
      return result;
    },
  };
}
