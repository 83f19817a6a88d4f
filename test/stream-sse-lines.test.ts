// The SSE line reader alone (src/stream/sse-lines.ts: the wire format, before any event logic),
// on bytes from a small alphabet that spells field names and their near misses, cut anywhere:
// its lines, fields, values and event types equal a plain reading of the spec (split at CRLF, CR
// or LF; the name runs to the first ':'), and the events its lines make equal eventsource-parser's
// (the parser the MCP SDK uses). And it says when an event may start (the batch's cue).
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  dataValueAt,
  eventValueAt,
  type Field,
  isDataLine,
  isEventLine,
  LineReader,
  type LineSink,
  namesMessage,
} from '../src/stream/sse-lines.ts';
import { runs } from './arbitraries.ts';
import { bytes, split } from './stream-helpers.ts';

interface Line {
  field: Field;
  valueAt: number;
  text: string;
  ending: string;
  isMessage?: boolean;
}
const latin1 = (b: Uint8Array) => String.fromCharCode(...b);

/** What the reader tells of `chunks`, pushed as the SSE framer pushes them; `blanks`: how many blank lines ended before `finish`. */
function readLines(chunks: Uint8Array[]): { lines: (Line | 'blank')[]; blanks: number } {
  const lines: (Line | 'blank')[] = [];
  const fresh = (): Line => ({ field: 'other', valueAt: 0, text: '', ending: '' });
  let line = fresh();
  let told = false; // the line's field was told
  const sink: LineSink = {
    field(field, valueAt, first) {
      expect(told).toBe(false); // (once per line, with its first bytes)
      expect(first.length).toBeGreaterThan(0);
      told = true;
      line = { ...line, field, valueAt, text: latin1(first) };
    },
    bytes(b) {
      expect(told).toBe(true);
      line.text += latin1(b);
    },
    type(isMessage) {
      line.isMessage = isMessage;
    },
    end(ending) {
      expect(told).toBe(true);
      lines.push({ ...line, ending: latin1(ending) });
      line = fresh();
      told = false;
    },
    blank(ending) {
      expect(told).toBe(false);
      lines.push('blank');
      expect(latin1(ending)).toMatch(/^(\r|\n|\r\n)$/);
    },
  };
  const reader = new LineReader();
  let read = ''; // the bytes read so far
  const checkFresh = (pendingCR: boolean) => {
    if (reader.fresh !== freshAfter(read, pendingCR)) throw new Error(`fresh is ${reader.fresh} after ${JSON.stringify(read)}`);
  };
  for (const chunk of chunks) {
    if (chunk.length === 0) continue;
    let at = reader.begin(chunk, sink);
    read += latin1(chunk.subarray(0, at));
    checkFresh(false);
    while (at < chunk.length) {
      const next = reader.line(chunk, at, sink);
      read += latin1(chunk.subarray(at, next));
      at = next;
      checkFresh(next === chunk.length && chunk[next - 1] === 0x0d);
    }
    reader.ends.reset(null);
  }
  const blanks = lines.filter((l) => l === 'blank').length;
  reader.finish(sink);
  return { lines, blanks };
}

/** Whether no byte of a line has come since the last blank line ended (`pendingCR`: the CR last has not ended its line yet): an event may start. */
function freshAfter(read: string, pendingCR: boolean): boolean {
  let fresh = true;
  for (const l of referenceLines(pendingCR ? read.slice(0, -1) : read)) fresh = l === 'blank';
  return fresh;
}

/** The spec's reading, in a few plain lines: a CR or nothing last ends the last line. */
function referenceLines(text: string): (Line | 'blank')[] {
  const out: (Line | 'blank')[] = [];
  for (const [, line, ending] of text.matchAll(/([^\r\n]*)(\r\n|\r|\n|$)/g) as Iterable<[string, string, string]>) {
    if (line === '' && ending === '') continue;
    if (line === '') {
      out.push('blank');
      continue;
    }
    const colon = line.indexOf(':');
    const name = colon < 0 ? line : line.slice(0, colon);
    const valueAt = colon < 0 ? line.length : line[colon + 1] === ' ' ? colon + 2 : colon + 1;
    const field: Field = name === 'data' ? 'data' : name === 'event' ? 'event' : 'other';
    const l: Line = { field, valueAt: field === 'data' ? valueAt : 0, text: line, ending };
    if (field === 'event') l.isMessage = ['', 'message'].includes(line.slice(valueAt));
    out.push(l);
  }
  return out;
}

/** The events the reader's lines make, as the spec dispatches them at a blank line (data joined by '\n', the last `event` value). */
function eventsOf(lines: (Line | 'blank')[]): EventSourceMessage[] {
  const out: EventSourceMessage[] = [];
  let data: string[] = [];
  let type: string | undefined;
  let id: string | undefined;
  for (const l of lines) {
    if (l === 'blank') {
      if (data.length) out.push({ id, event: type || undefined, data: data.join('\n') });
      [data, type, id] = [[], undefined, undefined];
    } else if (l.field === 'data') data.push(l.text.slice(l.valueAt));
    else if (l.field === 'event') type = l.text.slice(eventValueAt(bytes(l.text), 0, l.text.length));
    else if (/^id(:|$)/.test(l.text)) {
      const v = l.text.slice(l.text[3] === ' ' ? 4 : 3);
      if (!v.includes('\0')) id = v;
    }
  }
  return out;
}

// Lines spelling field names, their prefixes and near misses, values, and every line ending.
const piece = fc.constantFrom(
  'data',
  'data:',
  'data: ',
  'dat',
  'dataa',
  'Data:',
  'event',
  'event:',
  'event: ',
  'even',
  'events:',
  'message',
  'messag',
  'messages',
  'id: ',
  'id',
  ':',
  ' ',
  'x',
  '{"a":1}',
  '\r',
  '\n',
  '\r\n',
  '\0',
);
const stream = fc.record({
  text: fc.array(piece, { maxLength: 40 }).map((p) => p.join('')),
  cuts: fc.array(fc.nat(), { maxLength: 12 }),
  oneByte: fc.boolean(),
});
const chunksOf = (b: Uint8Array, cuts: number[], oneByte: boolean) =>
  oneByte
    ? [...b].map((c) => Uint8Array.of(c))
    : split(
        b,
        cuts.map((c) => c % (b.length + 1)),
      );

describe('SSE line reader', () => {
  it('reads lines, fields, values and event types as the spec does, however the bytes are cut', () => {
    fc.assert(
      fc.property(stream, ({ text, cuts, oneByte }) => {
        const b = bytes(text);
        expect(readLines(chunksOf(b, cuts, oneByte)).lines).toEqual(referenceLines(text));
      }),
      runs(400),
    );
  });

  it('reads every short line of field-name bytes, and each start of `data: ` and `event: ` with any byte after, whole and a byte at a time', () => {
    const alphabet = ['d', 'a', 't', 'e', 'v', ':', ' ', 'x'];
    let lines = [''];
    let last = [''];
    for (let n = 0; n < 3; n++) {
      last = last.flatMap((l) => alphabet.map((c) => l + c));
      lines.push(...last);
    }
    for (const word of ['data: ', 'event: ']) {
      for (let k = 3; k <= word.length; k++) lines.push(...alphabet.flatMap((c) => [word.slice(0, k) + c, `${word.slice(0, k) + c}x`]));
    }
    // And every field with values near "message", after each separator.
    for (const name of ['data', 'event', 'id']) {
      for (const sep of ['', ':', ': ', ':  ']) {
        for (const value of ['', 'message', 'messag', 'messages', 'Message', ' message', 'x']) lines.push(name + sep + value);
      }
    }
    lines = [...new Set(lines)];
    const wrong: string[] = [];
    for (const line of lines) {
      for (const ending of ['\n', '\r', '\r\n', '']) {
        const text = `${line}${ending}`;
        const b = bytes(text);
        const want = JSON.stringify(referenceLines(text));
        if (JSON.stringify(readLines([b]).lines) !== want || JSON.stringify(readLines(chunksOf(b, [], true)).lines) !== want)
          wrong.push(text);
        // What the batch reads a whole line with (sse-batch.ts): the same predicates, on the line in a larger buffer.
        const [first] = referenceLines(text);
        if (first === undefined || first === 'blank') continue;
        const p = 3;
        const inBuffer = bytes(`xx\n${text}y`);
        const n = first.text.length;
        const field = isDataLine(inBuffer, p, n) ? 'data' : isEventLine(inBuffer, p, n) ? 'event' : 'other';
        const valueAt = field === 'data' ? dataValueAt(inBuffer, p, n) : 0;
        const v = eventValueAt(inBuffer, p, n);
        const isMessage = field === 'event' ? namesMessage(inBuffer, p + v, n - v) : undefined;
        if (field !== first.field || valueAt !== first.valueAt || isMessage !== first.isMessage) wrong.push(`batch: ${text}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('makes the events eventsource-parser makes, however the bytes are cut', () => {
    fc.assert(
      fc.property(stream, ({ text, cuts, oneByte }) => {
        const parsed: EventSourceMessage[] = [];
        createParser({ onEvent: (e) => void parsed.push(e) }).feed(text);
        const { lines, blanks } = readLines(chunksOf(bytes(text), cuts, oneByte));
        // (The parser dispatches only at blank lines it has seen end: none at the stream's end.)
        let seen = 0;
        const before = lines.filter((l) => l !== 'blank' || ++seen <= blanks);
        expect(eventsOf(before.slice(0, before.lastIndexOf('blank') + 1))).toEqual(parsed);
      }),
      runs(400),
    );
  });
});
