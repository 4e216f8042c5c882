// Fastify adapter: `app.register(fastifyListener({ path: '/webhook', … }))`. The plugin is
// encapsulated: inside it every content type is read as a raw Buffer, so Fastify's JSON parser
// never touches the body, and the rest of the app keeps its parsers.
import { DEFAULT_MAX_BODY_BYTES, flattenHeaders, handleNotification, type ListenerOptions } from './handleNotification.js';

type Done = (error?: Error) => void;

/** The parts of a Fastify instance the plugin uses (FastifyInstance satisfies it). */
export interface FastifyLikeInstance {
  removeAllContentTypeParsers(): void;
  addContentTypeParser(
    contentType: string,
    options: { parseAs: 'buffer'; bodyLimit?: number },
    parser: (request: unknown, body: Buffer, done: (error: Error | null, body?: unknown) => void) => void,
  ): void;
  post(
    path: string,
    handler: (
      request: { body: unknown; headers: Record<string, string | string[] | undefined> },
      reply: { code(status: number): unknown; header(name: string, value: string): unknown; send(payload: string): unknown },
    ) => Promise<unknown>,
  ): void;
}

export function fastifyListener<E = unknown>(options: ListenerOptions<E> & { path: string }): (instance: FastifyLikeInstance, pluginOptions: unknown, done: Done) => void {
  return (instance, _pluginOptions, done) => {
    instance.removeAllContentTypeParsers();
    instance.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES }, (_request, body, parsed) => parsed(null, body));
    instance.post(options.path, async (request, reply) => {
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const result = await handleNotification(raw, flattenHeaders(request.headers), options);
      reply.code(result.status);
      reply.header('content-type', 'application/json');
      return reply.send(result.body);
    });
    done();
  };
}
