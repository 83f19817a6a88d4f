// wrap's own work per call, in one process: the request line decoded on its way to the server
// and the reply line encoded on its way to the client, through the same pieces wrap uses (one
// push per message, as pipes deliver small messages; the held lines; the line writer), with
// the pipes themselves left out. The wrap rows measure the whole call; this is our part of it.
import { Writable } from 'node:stream';
import { HeldLines } from '../../src/cli/held-lines.ts';
import { LineWriter } from '../../src/cli/line-writer.ts';
import { createByteTransformer } from '../../src/stream/index.ts';
import { createWalkCodec } from '../baseline-walk.ts';
import type { BenchCase } from '../case.ts';

const walker = createWalkCodec();
const enc = new TextEncoder();
// As the SDK writes them: the client sends the encoded name back, the server answers with it decoded.
const REQUEST = '{"method":"tools/call","params":{"name":"open_app","arguments":{"app":"__mcp_ref_5177656e__"}},"jsonrpc":"2.0","id":7}\n';
const REPLY = '{"result":{"content":[{"type":"text","text":"Opened Qwen (com.alibaba.Qwen)"}]},"jsonrpc":"2.0","id":7}\n';

export function wrapWorkCases(): BenchCase[] {
  const request = enc.encode(REQUEST);
  const reply = enc.encode(REPLY);
  let out = '';
  const sink = new Writable({ write: (_c, _e, done) => done() });
  const capture = new Writable({
    write: (c: Uint8Array, _e, done) => {
      out += Buffer.from(c).toString();
      done();
    },
  });
  const proxy = (to: Writable) => {
    const toClient = new LineWriter(to);
    const held = new HeldLines((b) => toClient.write(b), 1024 * 1024);
    const encoder = createByteTransformer('encode', {}, (b) => held.write(b));
    const decoder = createByteTransformer('decode', {}, (b) => to.write(b)); // (to the server)
    return () => {
      decoder.push(request);
      encoder.push(reply);
    };
  };
  const call = proxy(sink);
  // What a parse/walk/stringify proxy does with the same two lines.
  const pipeline = () => [
    JSON.stringify(walker.decodeMessage(JSON.parse(REQUEST))),
    JSON.stringify(walker.encodeMessage(JSON.parse(REPLY))),
  ];
  return [
    {
      group: 'wrap',
      name: "wrap's own work per call (decode the request, encode the reply; in process)",
      bytes: request.length + reply.length,
      unit: 'µs/msg',
      messages: 1,
      ours: call,
      baselineName: 'parse+walk+stringify',
      baseline: pipeline,
      check: () => {
        out = '';
        proxy(capture)();
        const [req, rep] = pipeline();
        return out === `${req}\n${rep}\n`;
      },
    },
  ];
}
