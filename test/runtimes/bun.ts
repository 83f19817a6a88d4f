// Bun: the harness as Bun.serve's fetch handler; prints its port for the test.
import { harness } from './harness.ts';

declare const Bun: { serve(o: { port: number; hostname: string; fetch: (r: Request) => Promise<Response> }): { port: number } };
declare const process: { env: Record<string, string | undefined> };

const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: harness(process.env.UPSTREAM!) });
console.log(`listening ${server.port}`);
