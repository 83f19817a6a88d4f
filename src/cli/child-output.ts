// A serve session's child output, read: encoded on bytes, then cut into messages, each with its
// bytes as written (a batch's elements cut out of its line), its value (to look at) and its text.
// A line that is not a message (a banner, a stray log line) is skipped with a note, as wrap
// does; one over maxMessageBytes throws (its request would wait forever). A refused line whose
// ids can be read is answered as wrap answers it: the host's request gets the error (routed as
// the server's answer would have been), the server's its own.
import type { Codec } from '../codec/codec.js';
import { arrayElementSpans } from '../codec/json-spans.js';
import type { CodecOptions } from '../codec/options.js';
import { messageText } from '../jsonrpc/raw-id.js';
import { createByteTransformer, type PayloadStreamError } from '../stream/index.js';
import { parseJson } from '../util/json.js';
import { ndjsonLines } from './ndjson-lines.js';
import { oneLine } from './one-line.js';
import { RefusedLines, refusalOfLine } from './refused-lines.js';

/** A refused server line is kept up to this many bytes to read its ids (as wrap keeps one). */
const REFUSED_LINE_BYTES = 1024 * 1024;

const utf8 = new TextDecoder();

/** One message from the child, encoded: `text` is `bytes` as text, when already made. */
export interface ChildMessage {
  bytes: Uint8Array;
  value: unknown;
  text?: string;
}

export interface ChildOutputOptions {
  codec: Codec;
  codecOptions: CodecOptions;
  maxMessageBytes: number;
  /** A line for the child (an answer to a refused request of its own). */
  toChild: (line: string) => void;
  log: (line: string) => void;
}

/** Where and why, never what: `message 3 (invalid JSON at byte 0; blank lines not counted)`. */
const describeInvalid = (e: PayloadStreamError) =>
  `message ${e.messageNumber} (${e.reason} at byte ${e.byteOffset}; blank lines not counted)`;

/** The messages of each line the child writes, encoded; one array per line (a batch's elements, or one). */
export async function* childMessages(stdout: AsyncIterable<Uint8Array>, o: ChildOutputOptions): AsyncGenerator<ChildMessage[]> {
  // (Each line is a message the encoder wrote whole, or the spoiled start of one it refused.)
  for await (const bytes of ndjsonLines(encoded(stdout, o))) {
    const line = oneLine(bytes);
    const text = utf8.decode(line);
    if (!text.trim()) continue;
    const value = parseJson(text);
    if (value === undefined) continue; // (the encoder spoiled it on purpose and has logged why)
    if (Array.isArray(value)) {
      const spans = arrayElementSpans(line);
      yield value.map((v, k) => ({ bytes: line.subarray(...spans[k]!), value: v }));
    } else yield [{ bytes: line, value, text }];
  }
}

/** Child to host: encoded on bytes, refused lines answered. */
async function* encoded(stdout: AsyncIterable<Uint8Array>, o: ChildOutputOptions): AsyncGenerator<Uint8Array> {
  const out: Uint8Array[] = [];
  const refused = new RefusedLines(REFUSED_LINE_BYTES, o.maxMessageBytes, (e, line) => {
    const { replies, toOtherSide } = refusalOfLine('server', e, line);
    if (replies) o.toChild(messageText(replies));
    // (After a '\n' of its own: the spoiled start of the refused line, if one went out, may not be ended yet.)
    for (const m of toOtherSide) out.push(new TextEncoder().encode(`\n${messageText(o.codec.encodeMessage(m))}\n`));
    const told = [replies && 'the server answered', toOtherSide.length && 'the host told'].filter(Boolean).join(', ');
    o.log(`from the server: skipped ${describeInvalid(e)}: not forwarded${told && ` (${told})`}; the session goes on`);
  });
  const encoder = createByteTransformer(
    'encode',
    {
      ...o.codecOptions,
      framing: 'ndjson',
      onInvalidMessage: (e) => {
        if (e.code === 'too-large') throw e;
        refused.refuse(e);
      },
    },
    (b) => out.push(b),
  );
  try {
    for await (const chunk of stdout) {
      refused.push(chunk, (b) => encoder.push(b));
      yield* out.splice(0);
    }
    encoder.close();
    refused.end();
    yield* out.splice(0);
  } finally {
    encoder.release(); // (the session ended mid-stream: the WASM memory goes back)
  }
}
