// The shape check a geth-style trace answer must pass before the cache keeps it: a node (or
// whatever answers in its place) can send any JSON as `result`, and a kept answer is served to
// every later caller. Only the built-in tracers' shapes are known; any other tracer's answer is
// passed on but never cached. The walk over nested calls is iterative, so no answer's depth can
// overflow the stack.

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const QUANTITY = /^0x[0-9a-fA-F]+$/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A callTracer frame and every frame below it: type, from, gasUsed, and calls as an array of frames. */
function isCallFrameTree(root: unknown): boolean {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const frame = stack.pop();
    if (!isRecord(frame) || typeof frame.type !== 'string' || typeof frame.from !== 'string' || !ADDRESS.test(frame.from)) return false;
    if (typeof frame.gasUsed !== 'string' || !QUANTITY.test(frame.gasUsed)) return false;
    if (frame.calls !== undefined) {
      if (!Array.isArray(frame.calls)) return false;
      stack.push(...(frame.calls as unknown[]));
    }
  }
  return true;
}

const isAccountMap = (value: unknown): boolean => isRecord(value) && Object.entries(value).every(([k, v]) => ADDRESS.test(k) && isRecord(v));

/**
 * Whether `result` has the shape of `debug_traceTransaction`'s answer for `config` (its second
 * parameter); false for tracers whose shape is not known here.
 */
export function isTraceAnswerShape(result: unknown, config: unknown): boolean {
  const tracer = isRecord(config) ? config.tracer : undefined;
  const tracerConfig = isRecord(config) && isRecord(config.tracerConfig) ? config.tracerConfig : {};
  switch (tracer) {
    case undefined:
      // The struct logger.
      return isRecord(result) && typeof result.gas === 'number' && typeof result.failed === 'boolean' && typeof result.returnValue === 'string' && Array.isArray(result.structLogs);
    case 'callTracer':
      return isCallFrameTree(result);
    case 'flatCallTracer':
      return Array.isArray(result) && result.every((e) => isRecord(e) && typeof e.type === 'string' && isRecord(e.action));
    case 'prestateTracer':
      return tracerConfig.diffMode === true ? isRecord(result) && isAccountMap(result.pre) && isAccountMap(result.post) : isAccountMap(result);
    case '4byteTracer':
      return isRecord(result) && Object.values(result).every((n) => typeof n === 'number');
    case 'noopTracer':
      return isRecord(result) && Object.keys(result).length === 0;
    default:
      return false;
  }
}
