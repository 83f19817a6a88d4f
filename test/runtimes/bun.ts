// Bun: the harness as Bun.serve's fetch handler, on PORT.
import { harness } from './harness.ts';

declare const Bun: { serve(o: { port: number; hostname: string; fetch: (r: Request) => Promise<Response> }): unknown };
declare const process: { env: Record<string, string | undefined> };

Bun.serve({ port: Number(process.env.PORT), hostname: '127.0.0.1', fetch: harness(process.env.UPSTREAM!) });
