// Deno: the harness as Deno.serve's handler, on PORT.
import { harness } from './harness.ts';

declare const Deno: {
  env: { get(name: string): string | undefined };
  serve(o: { port: number; hostname: string }, handler: (r: Request) => Promise<Response>): unknown;
};

Deno.serve({ port: Number(Deno.env.get('PORT')), hostname: '127.0.0.1' }, harness(Deno.env.get('UPSTREAM')!));
