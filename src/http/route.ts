// The shape of an HTTP sub-application mounted by the gateway under a path prefix (e.g. `/api`).
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface HttpRoute {
  /** Path prefix this route owns, e.g. `/api`. Matched on a segment boundary. */
  prefix: string;
  /** Fixed words of its paths (e.g. `create-webhook`), logged as they are; other segments are masked. */
  pathWords?: readonly string[];
  /** Handles the request completely (writes and ends the response). */
  handle(req: IncomingMessage, res: ServerResponse, ctx: { requestId: string }): Promise<void>;
}
