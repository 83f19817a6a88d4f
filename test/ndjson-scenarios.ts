// Random NDJSON streams for the tests that hold a fast path to the per-message one (the lane,
// stream-ndjson-lane.test.ts; the indexed path, stream-indexed.test.ts): valid and invalid
// lines, blank lines, CRLF, lines over or at maxMessageBytes, token keys that collide when
// decoding, deferred `data`, `blob` and data: URIs, batches, lines longer than the lane's
// region, a last line without '\n'; cut at random. `trace` is what a stream did with one.
import fc from 'fast-check';
import { PayloadKeyCollisionError } from '../src/errors.ts';
import { byteTransformer } from '../src/stream/byte-transformer.ts';
import { FRAMED } from '../src/stream/core-regions.ts';
import { PayloadStreamError, type StreamOptions } from '../src/stream/index.ts';
import { fragmentString } from './arbitraries.ts';
import { bytes, choices, writeJson } from './stream-helpers.ts';

export const str = fc.oneof(
  fragmentString(8),
  fc.constantFrom('image', 'text', 'audio', 'data:image/png;base64,UXdlbg==', 'data:text/plain;base64,', 'Qwen'),
);
const key = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('type', 'data', 'uri', 'blob', 'text', 'Qwen', '__mcp_ref_5177656e__', '__MCP_REF_5177656E__') },
  { weight: 1, arbitrary: fragmentString(4) },
);
const leaf = fc.oneof(str, fc.integer(), fc.boolean(), fc.constant(null));
const { value } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(key, tie('value'), { maxKeys: 4 }),
  ),
}));
const content = fc.array(
  fc.dictionary(fc.constantFrom('type', 'data', 'text', 'uri', 'blob', 'mimeType', '_meta'), value, { maxKeys: 4 }),
  {
    maxLength: 3,
  },
);
export const message = fc.oneof(
  fc.record({ jsonrpc: fc.constant('2.0'), id: fc.oneof(fc.integer(), str), method: str, params: value }),
  fc.record({ jsonrpc: fc.constant('2.0'), id: fc.integer(), result: fc.oneof(value, fc.record({ content })) }),
  fc.record({ jsonrpc: fc.constant('2.0'), method: fc.constant('notifications/progress'), params: value }),
  fc.record({ jsonrpc: fc.constant('2.0'), id: fc.integer(), error: fc.record({ code: fc.integer(), message: str, data: value }) }),
);
export const written = fc
  .tuple(fc.oneof({ weight: 4, arbitrary: message }, { weight: 1, arbitrary: fc.array(message, { maxLength: 3 }) }), choices)
  .map(([m, c]) => bytes(writeJson(m, c)));

export const cat = (...parts: Uint8Array[]) => new Uint8Array(Buffer.concat(parts));

/** Lines (or bodies) that are not messages: cut short, junk after a value, bad UTF-8, a control byte, a banner. */
export const broken = fc.tuple(written, fc.nat(), fc.constantFrom(0, 1, 2, 3, 4)).map(([w, at, how]) => {
  const cut = at % Math.max(1, w.length);
  if (how === 0) return w.subarray(0, cut); // cut short
  if (how === 1) return cat(w, bytes('x')); // junk after a value
  if (how === 2) return cat(w.subarray(0, cut), new Uint8Array([0xff]), w.subarray(cut)); // bad UTF-8
  if (how === 3) return cat(w.subarray(0, cut), new Uint8Array([0x01]), w.subarray(cut)); // a control byte
  return bytes('Server started on port 3000');
});

/** Keys that collide once decoded (encoding takes them as any keys). */
export const colliding = fc
  .tuple(fc.integer(), fc.constantFrom('Qwen', '__MCP_REF_5177656E__', 'qwen'), choices)
  .map(([id, other, c]) => bytes(writeJson({ jsonrpc: '2.0', id, result: { list: [{ __mcp_ref_5177656e__: 1, [other]: 2 }] } }, c)));

/** Longer than the lane's 16 KiB region: an NDJSON line is taken on its own (a large line), a framed body goes the per-message way. */
export const overRegion = fc.constantFrom(17000, 40000).map((n) => bytes(`{"jsonrpc":"2.0","id":1,"result":"${'Qwen '.repeat(n / 5)}"}`));

// A line (without its ending): mostly messages, and the unusual.
export const line = fc.oneof(
  { weight: 8, arbitrary: written },
  { weight: 1, arbitrary: fc.constantFrom('', ' ', '\t', ' \r ', '\r').map(bytes) }, // blank
  { weight: 2, arbitrary: broken },
  { weight: 2, arbitrary: colliding },
  { weight: 1, arbitrary: overRegion },
);

/** A message body padded with blanks (after the value) to exactly n bytes, or cut short if longer. */
export const sized = (n: number) => {
  const json = bytes('{"jsonrpc":"2.0","id":1,"result":{"model":"Qwen","text":"qwen"}}');
  const b = new Uint8Array(n).fill(0x20);
  b.set(json.subarray(0, Math.min(n, json.length)));
  return b;
};

/** `data` before `type`: the value is deferred (a batch leaves it to the per-message path). */
export const deferred = fc
  .nat(40)
  .map((n) => bytes(`{"jsonrpc":"2.0","id":${n},"result":{"content":[{"data":"UXdlbg==","type":"image"}]}}`));

/**
 * A framed message's body (Content-Length or an SSE data line): mostly messages, blank, broken,
 * colliding and deferred ones, sizes either side of the 16 KiB region, and longer.
 */
/**
 * Runs of messages the batch defers (an image result's `data` before its `type`) of 1-140
 * between a few it takes, each framed by `frameOf` (k: its place in its run): the batch's
 * back-off counts such runs.
 */
export function backOffRuns(frameOf: (json: string, k: number) => string): Uint8Array {
  const ok = '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"qwen"}]}}';
  const late = '{"jsonrpc":"2.0","id":2,"result":{"content":[{"data":"UXdlbg==","type":"image"}]}}';
  const parts: string[] = [];
  for (const [run, good] of [
    [1, 3],
    [70, 2],
    [3, 1],
    [140, 5],
    [2, 0],
  ] as const) {
    for (let k = 0; k < run; k++) parts.push(frameOf(late, k));
    for (let k = 0; k < good; k++) parts.push(frameOf(ok, k));
  }
  return bytes(parts.join(''));
}

export const framedBody = fc.oneof(
  { weight: 6, arbitrary: written },
  { weight: 1, arbitrary: fc.constantFrom('', ' ', '{}', '[]').map(bytes) },
  { weight: 2, arbitrary: broken },
  { weight: 2, arbitrary: colliding },
  { weight: 2, arbitrary: deferred },
  { weight: 1, arbitrary: fc.constantFrom(FRAMED - 1, FRAMED, FRAMED + 1, 1024).map(sized) },
  { weight: 1, arbitrary: overRegion }, // (longer than any carry: never held whole)
);

/** SSE lines that are not an event's data: comments, ids, types (message or not), near misses, a bare `data`. */
export const sseField = fc.constantFrom(
  ': keep-alive',
  ':',
  'id: 5',
  'id',
  'retry: 10',
  'event: message',
  'event:message',
  'event:',
  'event',
  'event: x',
  'event: endpoint',
  'event: messages',
  'Event: x',
  'DATA: x',
  'datax: 1',
  'data',
  'foo',
);

/** How a traced stream's callbacks behave: off, logged, or logged and then throwing. */
export type CallbackHow = 'none' | 'log' | 'throw';

/**
 * A traced framed stream's output and options: output appended to `log` as text between the
 * callbacks (each logged as it runs), `written()` the bytes out so far, and maxMessageBytes as
 * the scenario's limit says (a number, or a body's size and a delta).
 */
export function traced(
  framing: 'content-length' | 'sse',
  s: { limit: number | undefined | [number, number]; onInvalid: CallbackHow; onCollision: CallbackHow },
  sizes: readonly number[],
  log: unknown[],
): { out: (b: Uint8Array) => void; written: () => number; options: StreamOptions } {
  let total = 0;
  const append = outputAppender(log);
  const callback = (kind: string, how: CallbackHow) =>
    how === 'none'
      ? undefined
      : (e: unknown) => {
          log.push([kind, ...describeError(e)]);
          if (how === 'throw') throw new Error(`${kind} callback threw`);
        };
  const maxMessageBytes = Array.isArray(s.limit) ? Math.max(1, sizes[s.limit[0] % sizes.length]! + s.limit[1]) : s.limit;
  return {
    out: (b) => {
      total += b.length;
      append(b);
    },
    written: () => total,
    options: {
      framing,
      maxMessageBytes,
      onInvalidMessage: callback('invalid', s.onInvalid),
      onCollision: callback('dropped', s.onCollision),
    },
  };
}

/** An error as the properties compare it: its kind, message, place and ids (never payload). */
export const describeError = (e: unknown): unknown[] =>
  e instanceof PayloadStreamError
    ? ['stream', e.message, e.code, e.messageNumber, e.byteOffset]
    : e instanceof PayloadKeyCollisionError
      ? ['collision', e.message, e.messageNumber, e.id, e.batchIds, e.keyIndexes]
      : ['other', String(e)];

/** A stream of lines drawn from `lines`, in a mode, with limits, callbacks and chunks. */
export const scenarioOf = (lines: fc.Arbitrary<Uint8Array>) =>
  fc.record({
    mode: fc.constantFrom('encode' as const, 'decode' as const),
    lines: fc.array(lines, { minLength: 1, maxLength: 12 }),
    crlf: fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }),
    lastEnded: fc.boolean(),
    // maxMessageBytes: the default, small, or exactly some line's size (or one less).
    limit: fc.oneof(
      { weight: 2, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: fc.constantFrom(40, 200) },
      { weight: 1, arbitrary: fc.tuple(fc.nat(), fc.constantFrom(0, -1)) },
    ),
    onInvalid: fc.boolean(),
    onCollision: fc.boolean(),
    // Chunks: cut at random, one byte each, or one reused buffer of a fixed size.
    chunking: fc.oneof(
      { weight: 4, arbitrary: fc.record({ cuts: fc.array(fc.nat(60000), { maxLength: 10 }) }) },
      { weight: 1, arbitrary: fc.constant({ oneByte: true }) },
      { weight: 1, arbitrary: fc.record({ reuse: fc.integer({ min: 8, max: 400 }) }) },
    ),
  });
export const scenario = scenarioOf(line);
export type Scenario = typeof scenario extends fc.Arbitrary<infer S> ? S : never;

/** A scenario of one input fed as it is (lines already ended), encoding, with a limit. */
export const oneInput = (input: Uint8Array, limit: Scenario['limit'], onInvalid: boolean, chunking: Scenario['chunking']): Scenario => ({
  mode: 'encode',
  lines: [input],
  crlf: [],
  lastEnded: true,
  limit,
  onInvalid,
  onCollision: false,
  chunking,
});

export function render(s: Scenario): Uint8Array {
  const parts = s.lines.map((l, i) => {
    const last = i === s.lines.length - 1;
    return last && !s.lastEnded ? l : cat(l, bytes(s.crlf[i] ? '\r\n' : '\n'));
  });
  return cat(...parts);
}

/** Pushes `input` in the scenario's chunks; calls `push` with each (a reused buffer: the same object). */
export function pushChunks(s: { chunking: Scenario['chunking'] }, input: Uint8Array, push: (chunk: Uint8Array) => void): void {
  const c = s.chunking;
  if ('oneByte' in c) {
    for (let i = 0; i < input.length; i++) {
      // (A chunk of its own each time; not `new Uint8Array([b])`, which builds an array first: 5x the time.)
      const one = new Uint8Array(1);
      one[0] = input[i]!;
      push(one);
    }
  } else if ('reuse' in c) {
    const buffer = new Uint8Array(c.reuse);
    for (let at = 0; at < input.length; at += c.reuse) {
      const piece = input.subarray(at, at + c.reuse);
      if (piece.length < c.reuse) push(piece.slice());
      else {
        buffer.set(piece);
        push(buffer); // (its owner overwrites it for the next push)
      }
    }
  } else {
    const points = [...new Set(c.cuts.map((p) => Math.min(p, input.length)))].sort((a, b) => a - b);
    let from = 0;
    for (const p of [...points, input.length]) {
      if (p > from) push(input.slice(from, p));
      from = p;
    }
  }
}

/**
 * Pushes `input` cut at `cuts` (sorted); with `empties`, an empty chunk before each piece and at
 * the end; with `scribble`, through one buffer overwritten with `junk` after each push (junk that
 * reads as frames, so a held view of the buffer would show).
 */
export function pushCut(
  s: { empties: boolean; scribble: boolean },
  input: Uint8Array,
  cuts: readonly number[],
  junk: Uint8Array,
  push: (c: Uint8Array) => void,
): void {
  const buffer = new Uint8Array(input.length);
  let from = 0;
  for (const p of [...cuts, input.length]) {
    if (p <= from) continue;
    if (s.empties) push(new Uint8Array(0));
    if (!s.scribble) push(input.slice(from, p));
    else {
      const piece = buffer.subarray(0, p - from);
      piece.set(input.subarray(from, p));
      push(piece);
      for (let i = 0; i < piece.length; i++) piece[i] = junk[i % junk.length]!;
    }
    from = p;
  }
  if (s.empties) push(new Uint8Array(0));
}

/**
 * Output in a log is latin1 text: one character per byte, so a comparison is a comparison of the
 * bytes, JSON reads as itself in a failure's diff, and it costs a copy (hex cost twice the
 * characters, and a conversion per byte: most of what the adversary files spent).
 */
export const logText = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('latin1');

/** The bytes of a log's output (its text entries, joined). */
export const loggedBytes = (log: readonly unknown[]): Buffer => Buffer.from(log.filter((x) => typeof x === 'string').join(''), 'latin1');

/** Appends output to `log` as text (logText), joined to the output before it unless a callback came between. */
export const outputAppender = (log: unknown[]) => (b: Uint8Array) => {
  const text = logText(b);
  if (typeof log.at(-1) === 'string') log[log.length - 1] += text;
  else log.push(text);
};

/** What a `framing` stream did with `input` cut at `cuts` (each piece a copy), its batch on or off: output (outputAppender) and the error it threw. */
export function cutTrace(
  framing: 'content-length' | 'sse',
  mode: 'encode' | 'decode',
  options: StreamOptions,
  input: Uint8Array,
  batch: boolean,
  cuts: readonly number[],
): unknown[] {
  const log: unknown[] = [];
  const t = byteTransformer(mode, { framing, ...options }, outputAppender(log), { lines: batch });
  try {
    let from = 0;
    for (const p of [...cuts, input.length]) {
      if (p < from) continue;
      t.push(input.slice(from, p));
      from = p;
    }
    t.close();
  } catch (e) {
    log.push(['threw', ...describeError(e)]);
  }
  return log;
}

/** What a stream did (with `codec`'s terms, if any): output between callbacks (logText), callbacks, and the error it threw. */
export function trace(s: Scenario, input: Uint8Array, lines: boolean, codec: StreamOptions = {}): unknown[] {
  const log: unknown[] = [];
  const out = outputAppender(log);
  const what = describeError;
  let maxMessageBytes: number | undefined;
  if (Array.isArray(s.limit)) {
    const l = s.lines[s.limit[0] % s.lines.length]!;
    maxMessageBytes = Math.max(1, l.length + s.limit[1]);
  } else maxMessageBytes = s.limit;
  const options: StreamOptions = {
    ...codec,
    maxMessageBytes,
    onInvalidMessage: s.onInvalid ? (e) => void log.push(['invalid', ...what(e)]) : undefined,
    onCollision: s.onCollision ? (e) => void log.push(['dropped', ...what(e)]) : undefined,
  };
  const t = byteTransformer(s.mode, options, out, { lines });
  try {
    pushChunks(s, input, (c) => t.push(c));
    t.close();
  } catch (e) {
    log.push(['threw', ...what(e)]);
  }
  return log;
}

/**
 * A trace as the receiver reads it: the output an invalid message wrote before its error (what
 * followed the last newline when it was reported or thrown), its spoiling comma and its line's
 * newline are left out. How much of a message that turns out invalid is written first depends
 * on how its bytes arrived (a line cut by a chunk's end is held until it ends, then read
 * whole); either way the receiver drops that line. Everything else stays exact.
 */
export function asReceived(log: readonly unknown[]): unknown[] {
  const out: unknown[] = [];
  let cutLine = false; // an invalid message's partial line was left out: its newline follows
  let afterInvalid = false; // its spoiling comma may follow
  for (const entry of log) {
    if (typeof entry === 'string') {
      let text = entry;
      if (afterInvalid && text.startsWith(',')) {
        text = text.slice(1);
        cutLine = true;
      }
      if (cutLine && text.startsWith('\n')) text = text.slice(1);
      afterInvalid = cutLine = false;
      if (text) {
        if (typeof out.at(-1) === 'string') out[out.length - 1] += text;
        else out.push(text);
      }
      continue;
    }
    const kind = (entry as unknown[])[0];
    if ((kind === 'invalid' || kind === 'threw') && typeof out.at(-1) === 'string') {
      const text = out.at(-1) as string;
      const cut = text.lastIndexOf('\n') + 1; // (0: no newline)
      cutLine = cut < text.length;
      if (cut === 0) out.pop();
      else out[out.length - 1] = text.slice(0, cut);
    }
    afterInvalid = kind === 'invalid';
    out.push(entry);
  }
  return out;
}
