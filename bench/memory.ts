// Run in its own process by bench/run.ts: one NDJSON message of SIZE bytes (a single text
// string of mixed text with terms) through createEncodeStream, generated and consumed chunk
// by chunk. Prints the peak RSS growth over the baseline taken just before, as JSON.
import { readFileSync, writeFileSync } from 'node:fs';
import { createEncodeStream } from '../src/stream/index.ts';
import { mixedText } from './corpus.ts';

const size = Number(process.argv[2] ?? 256 * 1024 * 1024);
const enc = new TextEncoder();
const body = enc.encode(JSON.stringify(mixedText(5, 64 * 1024)).slice(1, -1)); // escaped string content
const head = enc.encode('{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"');
const tail = enc.encode('"}]}}\n');

// Warm up (compile, pools), then take the baseline.
await run(4 * 1024 * 1024);
global.gc?.();
const exactPeak = resetPeak();
const baseline = process.memoryUsage().rss;
let peak = baseline;
const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
const t0 = performance.now();
const out = await run(size);
const seconds = (performance.now() - t0) / 1000;
clearInterval(timer);
if (exactPeak) peak = Math.max(peak, peakRss());
console.log(JSON.stringify({ inputBytes: size, outputBytes: out, seconds, peakRssGrowthBytes: peak - baseline }));

/**
 * Linux keeps a peak RSS per address space and lets a process reset it to the current RSS.
 * (Not getrusage's maxRSS: a child inherits its parent's peak through fork and exec, which
 * made this figure the size of the benchmark process.) Elsewhere, the 5 ms samples stand.
 */
function resetPeak(): boolean {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
    return true;
  } catch {
    return false;
  }
}

function peakRss(): number {
  const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
  return kb ? Number(kb[1]) * 1024 : 0;
}

async function run(bytes: number): Promise<number> {
  let sent = 0;
  let phase = 0;
  const source = new ReadableStream<Uint8Array>({
    pull(c) {
      if (phase === 0) {
        c.enqueue(head.slice());
        phase = 1;
      } else if (sent < bytes) {
        c.enqueue(body.slice());
        sent += body.length;
      } else {
        c.enqueue(tail.slice());
        c.close();
      }
    },
  });
  let total = 0;
  const sink = new WritableStream<Uint8Array>({
    write(b) {
      total += b.length;
    },
  });
  await source.pipeThrough(createEncodeStream()).pipeTo(sink);
  return total;
}
