// Diagnostic: NDJSON encode/decode throughput per message kind (best of 25), to see what
// pulls the mix down.
import { appsListResult, cjkText, imageResult, toolsListResult } from './corpus.ts';
import { feed } from './cases/streams.ts';

function lines(make: (i: number) => unknown, bytes: number): Uint8Array {
  const out: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const l = JSON.stringify(make(i));
    out.push(l);
    size += Buffer.byteLength(l) + 1;
  }
  return new TextEncoder().encode(out.join('\n') + '\n');
}
const kinds: Record<string, Uint8Array> = {
  apps: lines((i) => appsListResult(i, 40), 4 << 20),
  cjk: lines((i) => ({ jsonrpc: '2.0', id: i, result: { content: [{ type: 'text', text: cjkText(i, 4096) }] } }), 4 << 20),
  cjkClean: lines((i) => ({ jsonrpc: '2.0', id: i, result: { content: [{ type: 'text', text: cjkText(i, 4096).replace(/通义|阿里|千问|钉钉|淘宝|百炼/g, '中文') }] } }), 4 << 20),
  image: lines((i) => imageResult(i, 48 * 1024), 4 << 20),
  tools: lines((i) => toolsListResult(i, 20), 4 << 20),
  small: lines((i) => ({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: i, progress: i % 100, message: 'the window button click open file error' } }), 4 << 20),
};
for (const [name, input] of Object.entries(kinds)) {
  let enc = new Uint8Array(0);
  { const parts: Uint8Array[] = []; feed('encode', input, (b) => void parts.push(b)); enc = Buffer.concat(parts); }
  for (const mode of ['encode', 'decode'] as const) {
    const src = mode === 'encode' ? input : enc;
    const times: number[] = [];
    for (let k = 0; k < 25; k++) {
      const t = performance.now();
      feed(mode, src, () => {});
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    console.log(`${name.padEnd(9)} ${mode}: ${(src.length / 1e6 / (times[0] / 1e3)).toFixed(0)} MB/s`);
  }
}
