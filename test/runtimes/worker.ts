// A Cloudflare Worker (run by workerd): the harness as its fetch handler, the upstream from a
// text binding of the worker's config.
import { harness } from './harness.ts';

let handler: ((r: Request) => Promise<Response>) | undefined;

export default {
  fetch(request: Request, env: { UPSTREAM: string }): Promise<Response> {
    handler ??= harness(env.UPSTREAM);
    return handler(request);
  },
};
