// Deno: the harness as Deno.serve's handler; prints its port for the test.
import { harness } from './harness.ts';

declare const Deno: {
  env: { get(name: string): string | undefined };
  serve(o: { port: number; hostname: string; onListen(a: { port: number }): void }, handler: (r: Request) => Promise<Response>): unknown;
};

Deno.serve(
  { port: 0, hostname: '127.0.0.1', onListen: ({ port }) => console.log(`listening ${port}`) },
  harness(Deno.env.get('UPSTREAM')!),
);
