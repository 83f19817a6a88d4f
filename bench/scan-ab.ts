// The matcher alone (the core's `scan`, byte records, final) on two builds of the SIMD core in one
// process, alternating, timed in CPU time: a change to assembly/match.ts read without the JSON
// layers around it, whose noise on a shared machine is larger than the change (a stream row
// moved 5% between runs with nothing changed). 64 KiB of CJK prose, mixed text and clean
// English; the records must agree.
//   node scripts/run-ts.mjs bench/scan-ab.ts <core A .wasm> <core B .wasm> [rounds] [nfkc]
// (`nfkc`: fold 'nfkc''s descriptor, ASCII masks and all, instead of the default's.)
// Progress messages: the 8-word string of each of 1,024 progress notifications, a call each
// (the per-call cost of a short string with words; ns a byte over all their bytes).
// (e.g. main's build/core.simd.wasm copied aside as A, this tree's as B.) The default codec's
// descriptor and the input are written by this tree's host into its own core's memory; each
// build gets a copy of that memory from the heap's base up, so the two builds must agree on
// where the heap starts (their static data), or A's base must be the lower.
import { readFileSync } from 'node:fs';
import { compile } from '../src/codec/compiled.ts';
import { resolveOptions } from '../src/codec/options.ts';
import { compileAutomaton } from '../src/compile/index.ts';
import { D_MATCHES, MODE_BYTE_RECORDS } from '../src/core/abi.ts';
import { core } from '../src/core/instance.ts';
import { allocate, heap } from '../src/core/memory.ts';
import { cjkText, cleanText, MESSAGE_KINDS, mixedText } from './corpus.ts';

type Scan = (desc: number, inp: number, len: number, out: number, final: number, mode: number) => number;
interface Core {
  memory: WebAssembly.Memory;
  heapBase(): number;
  scan: Scan;
}
const [fileA, fileB] = [process.argv[2], process.argv[3]];
if (!fileA || !fileB) throw new Error('usage: bench/scan-ab.ts <core A .wasm> <core B .wasm> [rounds]');
const rounds = Number(process.argv[4] ?? 15);
const load = (file: string) => new WebAssembly.Instance(new WebAssembly.Module(readFileSync(file)), {}).exports as unknown as Core;
const builds = [load(fileA), load(fileB)];
const host = core as unknown as Core;
for (const b of builds) if (b.heapBase() > host.heapBase()) throw new Error("bench/scan-ab.ts: a build whose heap starts past this tree's");

const options = process.argv[5] === 'nfkc' ? ({ fold: 'nfkc' } as const) : {};
const desc = compile(resolveOptions(options)).desc.ptr;
// A build from before the walk table (no D_START global) walks the DFA by state numbers: its
// copy of the descriptor points at those tables (transitions, accepting flags, class count).
const dfa = compileAutomaton(resolveOptions(options).patterns);
const byNumber = allocate(dfa.transitions.byteLength + dfa.accepting.length);
heap().set(new Uint8Array(dfa.transitions.buffer, dfa.transitions.byteOffset, dfa.transitions.byteLength), byNumber);
heap().set(dfa.accepting, byNumber + dfa.transitions.byteLength);
const SIZE = 64 * 1024;
const input = allocate(SIZE + 1024);
const records = allocate(8 * SIZE); // (8 bytes a possible match)
const CALLS = 300;
const progress = Array.from({ length: 1024 }, (_, i) => MESSAGE_KINDS['progress notifications'](i).params.message).join('');
// Clean English cut into strings of one length, a call each (the matcher's per-call cost there).
const SHORT = [8, 16, 17, 24, 32, 48, 64];
const clean = cleanText(7, 1024 * 64);
const texts: Record<string, string> = {
  'CJK prose': cjkText(5, SIZE),
  'mixed text': mixedText(5, SIZE),
  'clean English': cleanText(5, SIZE),
  'progress messages': progress,
  ...Object.fromEntries(SHORT.map((n) => [`clean ${n} B`, clean.slice(0, 512 * n)])),
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
console.log(`${rounds} rounds of ${CALLS} calls, A ${fileA}, B ${fileB}: CPU ns a byte, median A / B, ratio B/A`);
for (const [name, text] of Object.entries(texts)) {
  const bytes = new TextEncoder().encode(text).subarray(0, SIZE);
  new Uint8Array(host.memory.buffer).set(bytes, input);
  // Each call's [start, length]: the whole input, or each progress message's string.
  const calls: [number, number][] = [[0, bytes.length]];
  const short = /^clean (\d+) B$/.exec(name);
  if (short) calls.splice(0, 1, ...Array.from({ length: 512 }, (_, i): [number, number] => [i * Number(short[1]), Number(short[1])]));
  if (name === 'progress messages') {
    calls.length = 0;
    let at = 0;
    for (let i = 0; i < 1024; i++) {
      const n = new TextEncoder().encode(MESSAGE_KINDS['progress notifications'](i).params.message).length;
      calls.push([at, n]);
      at += n;
    }
  }
  const image = new Uint8Array(host.memory.buffer);
  for (const b of builds) {
    const short = image.length - b.memory.buffer.byteLength;
    if (short > 0) b.memory.grow(Math.ceil(short / 65536));
    new Uint8Array(b.memory.buffer).set(image.subarray(b.heapBase()), b.heapBase());
    if (!('D_START' in b)) {
      const d = new Uint32Array(b.memory.buffer, desc, 4); // D_TRANS, D_CLASSES, D_ACCEPT, D_NCLASSES
      [d[0], d[2], d[3]] = [byNumber, byNumber + dfa.transitions.byteLength, dfa.classCount];
    }
  }
  const len = bytes.length;
  const repeat = short ? 100 : calls.length > 1 ? 30 : CALLS;
  const found = builds.map((b) => {
    let all = '';
    for (const [at, n] of calls) {
      b.scan(desc, input + at, n, records, 1, MODE_BYTE_RECORDS);
      const count = new Uint32Array(b.memory.buffer, desc + D_MATCHES, 1)[0]!;
      all += Buffer.from(new Uint8Array(b.memory.buffer, records, 8 * count)).toString('hex');
    }
    return all;
  });
  if (found[0] !== found[1]) throw new Error(`${name}: the builds' records differ`);
  const times: number[][] = [[], []];
  for (let r = 0; r < rounds; r++) {
    for (const k of r % 2 ? [1, 0] : [0, 1]) {
      const b = builds[k]!;
      const c0 = process.cpuUsage();
      for (let i = 0; i < repeat; i++) for (const [at, n] of calls) b.scan(desc, input + at, n, records, 1, MODE_BYTE_RECORDS);
      const c = process.cpuUsage(c0);
      times[k]!.push(((c.user + c.system) * 1e3) / repeat / len);
    }
  }
  const [a, b] = [median(times[0]!), median(times[1]!)];
  const perCall =
    calls.length > 1 ? `   ${((a * len) / calls.length).toFixed(1)} / ${((b * len) / calls.length).toFixed(1)} ns a call` : '';
  console.log(
    `${name.padEnd(17)} ${a.toFixed(3)} / ${b.toFixed(3)}   x${(b / a).toFixed(3)}${perCall}   (${found[0]!.length / 16} matches)`,
  );
}
