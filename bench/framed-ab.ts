// Content-Length and SSE with the core's batch entry on and off, beside NDJSON, in one process,
// alternating, timed in CPU time (issue #17): node scripts/run-ts.mjs bench/framed-ab.ts [rounds] [decode]
// Not part of `npm run bench`: it compares the internal switch's two paths.

import { byteTransformer } from '../src/stream/byte-transformer.ts';
import { createByteTransformer, type StreamOptions } from '../src/stream/index.ts';
import { MESSAGE_KINDS, ndjsonOf, ndjsonTraffic } from './corpus.ts';

const CHUNK = 64 * 1024;
function run(input: Uint8Array, options: StreamOptions, lines: boolean, mode: 'encode' | 'decode' = 'encode'): number {
  let total = 0;
  const t = byteTransformer(
    mode,
    options,
    (b) => {
      total += b.length;
    },
    { lines },
  );
  for (let i = 0; i < input.length; i += CHUNK) t.push(input.subarray(i, i + CHUNK));
  t.close();
  return total;
}
function whole(input: Uint8Array): Uint8Array {
  const parts: Uint8Array[] = [];
  const t = createByteTransformer('encode', {}, (b) => void parts.push(b.slice()));
  t.push(input);
  t.close();
  return new Uint8Array(Buffer.concat(parts));
}
function reframe(ndjson: Uint8Array, framing: 'content-length' | 'sse'): Uint8Array {
  const enc = new TextEncoder();
  const lines = new TextDecoder().decode(ndjson).split('\n').filter(Boolean);
  return enc.encode(
    lines
      .map((l) => (framing === 'sse' ? `event: message\ndata: ${l}\n\n` : `Content-Length: ${enc.encode(l).length}\r\n\r\n${l}`))
      .join(''),
  );
}
const rounds = Number(process.argv[2] ?? 10);
const mode = process.argv[3] === 'decode' ? 'decode' : 'encode';
const sets = {
  mixed: ndjsonTraffic(21, 8 * 1024 * 1024),
  progress: ndjsonOf(MESSAGE_KINDS['progress notifications'], 2 * 1024 * 1024),
};
for (const [name, plain] of Object.entries(sets)) {
  // Decoding reads what encoding wrote.
  const nd = mode === 'encode' ? plain : whole(plain);
  const cl = reframe(nd, 'content-length');
  const sse = reframe(nd, 'sse');
  const cases: [string, () => number, number][] = [
    ['NDJSON', () => run(nd, {}, true, mode), nd.length],
    ['CL on', () => run(cl, { framing: 'content-length' }, true, mode), cl.length],
    ['CL off', () => run(cl, { framing: 'content-length' }, false, mode), cl.length],
    ['SSE on', () => run(sse, { framing: 'sse' }, true, mode), sse.length],
    ['SSE off', () => run(sse, { framing: 'sse' }, false, mode), sse.length],
  ];
  const times: number[][] = cases.map(() => []);
  for (let r = 0; r < rounds + 2; r++) {
    cases.forEach(([, f], i) => {
      const c0 = process.cpuUsage();
      f();
      const c = process.cpuUsage(c0);
      const dt = (c.user + c.system) / 1000; // CPU ms (less skewed by other processes than wall time)
      if (r >= 2) times[i]!.push(dt);
    });
  }
  const stat = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return { best: s[0]!, median: s[s.length >> 1]! };
  };
  const nds = stat(times[0]!);
  console.log(`== ${mode} ${name} (${rounds} rounds, MB/s best / median; ratio to NDJSON best / median)`);
  cases.forEach(([label, , bytes], i) => {
    const s = stat(times[i]!);
    const mb = (ms: number) => (bytes / 1e6 / (ms / 1e3)).toFixed(0);
    const ndRate = (ms: number) => nd.length / ms;
    console.log(
      `${label.padEnd(8)} ${mb(s.best)} / ${mb(s.median)} MB/s   x${(bytes / s.best / ndRate(nds.best)).toFixed(2)} / x${(bytes / s.median / ndRate(nds.median)).toFixed(2)}`,
    );
  });
}
