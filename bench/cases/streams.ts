// Byte streams against the pipeline people write today: split lines, JSON.parse, regex walk,
// JSON.stringify. Ours runs the same synchronous core as the TransformStreams.
import { createByteTransformer, type StreamOptions } from '../../src/stream/index.ts';
import { createWalkCodec } from '../baseline-walk.ts';
import { ndjsonTraffic } from '../corpus.ts';
import type { BenchCase } from '../case.ts';

const walker = createWalkCodec();
const CHUNK = 64 * 1024;

/** Feeds `input` in 64 KiB chunks, as a pipe would; `emit` gets the output chunks. */
export function feed(mode: 'encode' | 'decode', input: Uint8Array, emit: (b: Uint8Array) => void, options: StreamOptions = {}): void {
  const t = createByteTransformer(mode, options, emit);
  for (let i = 0; i < input.length; i += CHUNK) t.push(input.subarray(i, i + CHUNK));
  t.close();
}

/** Output bytes only counted, as a consumer writing chunks on would see them. */
function countBytes(mode: 'encode' | 'decode', input: Uint8Array): number {
  let total = 0;
  feed(mode, input, (b) => void (total += b.length));
  return total;
}

/** The whole output, for checking it against the baseline. */
export function transformBytes(mode: 'encode' | 'decode', input: Uint8Array, options: StreamOptions = {}): Uint8Array {
  const parts: Uint8Array[] = [];
  let total = 0;
  feed(mode, input, (b) => {
    parts.push(b);
    total += b.length;
  }, options);
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function pipeline(mode: 'encode' | 'decode', input: Uint8Array): Uint8Array {
  const f = mode === 'encode' ? walker.encodeMessage : walker.decodeMessage;
  const lines = new TextDecoder().decode(input).split('\n');
  return new TextEncoder().encode(lines.map((l) => (l ? JSON.stringify(f(JSON.parse(l))) : l)).join('\n'));
}

const same = (ours: Uint8Array, baseline: Uint8Array) => Buffer.compare(ours, baseline) === 0;

const target = { label: '>= 500 MB/s and >= 20x pipeline', met: (r: { ours?: { mbps: number }; ratio?: number }) => (r.ours?.mbps ?? 0) >= 500 && (r.ratio ?? 0) >= 20 };

export function streamCases(): BenchCase[] {
  const traffic = ndjsonTraffic(21, 8 * 1024 * 1024);
  const encoded = transformBytes('encode', traffic);
  return [
    {
      group: 'stream', name: 'NDJSON encode (8 MiB mixed traffic)', bytes: traffic.length, ours: () => countBytes('encode', traffic), baselineName: 'split+parse+walk+stringify', baseline: () => pipeline('encode', traffic).length, target,
      check: () => same(transformBytes('encode', traffic), pipeline('encode', traffic)),
    },
    {
      group: 'stream', name: 'NDJSON decode (8 MiB mixed traffic)', bytes: encoded.length, ours: () => countBytes('decode', encoded), baselineName: 'split+parse+walk+stringify', baseline: () => pipeline('decode', encoded).length, target,
      check: () => same(transformBytes('decode', encoded), pipeline('decode', encoded)),
    },
  ];
}
