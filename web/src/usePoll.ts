// Polls a loader every `intervalMs` while the page is visible; the last answer or error is kept.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

export function usePoll<T>(load: () => Promise<T>, intervalMs: number, deps: unknown[] = []): { data?: T; error?: string; reload(): void } {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<string>();
  const loadRef = useRef(load);
  loadRef.current = load;
  const run = useCallback(() => {
    loadRef
      .current()
      .then((d) => {
        setData(d);
        setError(undefined);
      })
      .catch((e: Error) => setError(e.message));
  }, []);
  useEffect(() => {
    run();
    if (!intervalMs) return;
    const timer = setInterval(() => document.visibilityState === 'visible' && run(), intervalMs);
    return () => clearInterval(timer);
  }, deps);
  return { data, error, reload: run };
}
