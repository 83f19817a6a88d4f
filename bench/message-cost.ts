// What one small message costs on the NDJSON lane, by shape (ns a message), encoding and then
// decoding (no line holds a token: the common case): a line pushed 400 times a chunk, ten chunks
// a sample, the best of 60 samples (wall clock), each build's dist in turn in one process. The
// differences between shapes give the fixed cost of a message and the cost of each member or
// number, and of a string by its length (docs/PERFORMANCE.md, issue 33).
//   node scripts/run-ts.mjs bench/message-cost.ts <dist> [<dist> ...]
// (ONLY=<text>: only the lines whose name holds it.)
// (MCP_PAYLOAD_CODEC_WASM=scalar for the scalar core.)
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const dirs = process.argv.slice(2);
type Make = (mode: 'encode' | 'decode', options: object, emit: (b: Uint8Array) => void) => { push(c: Uint8Array): void; close(): void };
const makes: Make[] = await Promise.all(
  dirs.map(async (d) => (await import(pathToFileURL(resolve(d, 'stream.js')).href)).createByteTransformer),
);
const log =
  '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"http","data":{"event":"request","host":"example.com","status":200,"ms":417}}}';
/** A request whose params hold 16 members, "k0x" to "k15x", each with `value(k)`. */
const members = (value: (k: number) => string) =>
  `{"jsonrpc":"2.0","method":"x","params":{${Array.from({ length: 16 }, (_, k) => `"k${k}x":${value(k)}`).join(',')}}}`;
const progress = (message: string) =>
  `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":5,"progress":5,"message":"${message}"}}`;
const lines: Record<string, string> = {
  bare: '{"jsonrpc":"2.0","method":"x"}',
  'empty params': '{"jsonrpc":"2.0","method":"x","params":{}}',
  'log notification': log,
  '16 numbers in an array':
    '{"jsonrpc":"2.0","method":"x","params":{"a":[101,202,303,404,505,606,707,808,909,111,222,333,444,555,666,777]}}',
  '8 objects in an array': `{"jsonrpc":"2.0","method":"x","params":{"a":[${Array.from({ length: 8 }, (_, k) => `{"n":"v${k}","p":${100 + k}}`).join(',')}]}}`,
  '16 members, numbers': members((k) => `${100 + k}`),
  '16 members, short strings': members((k) => `"v${k}abc"`),
  // (lengths the indexed path's filters tell apart, SIMD: filter.ts mayStartIn to 9 bytes,
  // mayStartInBlocks to 32, decode.ts mayHoldToken to 128)
  // (a progress notification's 8-word message, with a term and without)
  'progress, a term': progress('update timeout Tongyi project error install the list.'),
  'progress, no term': progress('list network timeout settings click error results open.'),
  'progress, near term': progress('update timeout Tongyx project error install the list.'),
  ...Object.fromEntries([12, 15, 24, 48].map((n) => [`16 members, ${n}-byte strings`, members((k) => `"${`v${k}`.padEnd(n, '-')}"`)])),
};
const COUNT = 400;
for (const [name, line] of Object.entries(lines).filter(([n]) => !process.env.ONLY || n.includes(process.env.ONLY))) {
  const chunk = new TextEncoder().encode(`${line}\n`.repeat(COUNT));
  const cols: string[] = [];
  for (const mode of ['encode', 'decode'] as const) {
    const best = makes.map(() => Number.POSITIVE_INFINITY);
    for (let r = 0; r < 60; r++)
      for (const [k, make] of makes.entries()) {
        const t = make(mode, {}, () => {});
        const t0 = process.hrtime.bigint();
        for (let i = 0; i < 10; i++) t.push(chunk);
        const ns = Number(process.hrtime.bigint() - t0) / (10 * COUNT);
        t.close();
        best[k] = Math.min(best[k]!, ns);
      }
    cols.push(best.map((b) => `${b.toFixed(0)} ns`.padStart(8)).join(' '));
  }
  console.log(name.padEnd(28), `${line.length} B`.padStart(6), 'enc', cols[0], ' dec', cols[1]);
}
