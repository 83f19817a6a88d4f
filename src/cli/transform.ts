// encode / decode: stdin through a byte transformer to stdout, with backpressure. Bad input
// ends the run (exit code 1): unlike the proxy, a filter has no session to keep alive.
import { createByteTransformer, type StreamOptions } from '../stream/index.js';
import { LineWriter } from './line-writer.js';

export async function transformStdio(mode: 'encode' | 'decode', options: StreamOptions): Promise<number> {
  const out = new LineWriter(process.stdout);
  const t = createByteTransformer(mode, options, (b) => out.write(b));
  for await (const chunk of process.stdin) {
    t.push(chunk as Uint8Array);
    await out.drained();
  }
  t.close();
  await out.end();
  return 0;
}
