// What `wrap` adds to each call: sequential small tools/call requests from the real SDK client
// to the real SDK server over stdio, straight, through `mcp-payload-codec wrap`, and through a
// bare Node process that only copies bytes (the floor: what any Node proxy adds, two more pipe
// hops and wake-ups per call), in rounds that take turns (the order rotating), so all see the
// same machine.

import { isDeepStrictEqual } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { asResult, call, latencyRows, ms, rotatedRounds, timedCalls } from '../latency.ts';
import type { CaseResult } from '../report.ts';

const SERVER = ['test/fixtures/sdk-server.mjs'];
const CLI = 'bin/mcp-payload-codec.js';
const PASSTHROUGH = 'bench/fixtures/passthrough.mjs';
/** The target: what wrap may add to the median call. */
const MAX_ADDED_MS = 0.05;

async function connect(args: string[]): Promise<Client> {
  // stderr ignored: the fixture logs each call there, and an undrained pipe would stall it.
  const transport = new StdioClientTransport({ command: process.execPath, args, stderr: 'ignore' });
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

// A term in the argument, so wrap really decodes it on the way in and encodes the reply.

export async function wrapResults(quick: boolean): Promise<CaseResult[]> {
  const calls = quick ? 200 : 2000;
  const perRound = quick ? 50 : 100;
  const warmup = quick ? 50 : 300;
  const direct = await connect(SERVER);
  const wrapped = await connect([CLI, 'wrap', process.execPath, ...SERVER]);
  const bare = await connect([PASSTHROUGH, process.execPath, ...SERVER]);
  try {
    // Equal work: the same reply either way, once decoded (wrap encodes what the client is shown).
    const [a, b] = [await call(direct), await call(wrapped)];
    if (isDeepStrictEqual(a, b) || !isDeepStrictEqual(a, asResult(b)))
      throw new Error('wrap: the reply through wrap is not the direct one encoded');
    if (!isDeepStrictEqual(a, await call(bare))) throw new Error('wrap: the pass-through changed the reply');
    const sides = [direct, wrapped, bare];
    for (const c of sides) await timedCalls(c, warmup, []);
    const { lat, ratio, added: addedWrap, addedFloor: addedBare, beyondFloor: beyondBare } = await rotatedRounds(sides, calls, perRound);
    const name = `${calls.toLocaleString('en-US')} sequential tools/call`;
    return [
      ...latencyRows('wrap', name, lat[1]!, lat[0]!, ratio, addedWrap, MAX_ADDED_MS),
      {
        group: 'wrap',
        name: `${name}: added at p50 by a bare Node pass-through (the floor of any Node proxy)`,
        bytes: 0,
        figure: ms(addedBare),
      },
      {
        group: 'wrap',
        name: `${name}: added at p50 beyond the bare pass-through (what is wrap's own)`,
        bytes: 0,
        figure: ms(beyondBare),
      },
    ];
  } finally {
    await Promise.allSettled([direct.close(), wrapped.close(), bare.close()]);
  }
}
