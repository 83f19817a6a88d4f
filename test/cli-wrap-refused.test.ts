// wrap and a client line it refuses but can still read (invalid UTF-8, most often): the
// client's requests in it are answered under their ids, the server is told about a response
// to its own request, and nothing of the line reaches the server. Before, the line was only
// dropped: the client waited for its timeout (and a server for its answer).
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runs } from './arbitraries.ts';
import { CliSession, fixture } from './fixtures/cli-session.ts';

const RECORDER = fixture('serve-record-child.mjs');
const BAD = [0xff, 0xc3, 0xe6, 0x88, 0xed, 0xa0, 0x80, 0xf4, 0x90]; // never valid where they stand

type Kind = 'request' | 'notification' | 'response';
interface Line {
  kind: Kind;
  id: string | number;
  idFirst: boolean; // the id before params (the SDK writes it after)
  bad: number | undefined; // a byte that is not UTF-8, in a string value (undefined: a clean line)
  cut: number; // where the line is cut between writes (fraction)
}

/** A message's bytes, with `bad` inside the text of one of its string values. */
function bytesOf(line: Line): Buffer {
  const key = line.kind === 'response' ? 'result' : 'params';
  const body = line.kind === 'response' ? { content: [{ type: 'text', text: 'AB' }] } : { name: 'w', arguments: { text: 'AB' } };
  const head = {
    jsonrpc: '2.0',
    ...(line.kind === 'request' ? { method: 'tools/call' } : {}),
    ...(line.kind === 'notification' ? { method: 'notifications/x' } : {}),
  };
  const idPart = line.kind === 'notification' ? {} : { id: line.id };
  const m = line.idFirst ? { ...head, ...idPart, [key]: body } : { ...head, [key]: body, ...idPart };
  const text = Buffer.from(`${JSON.stringify(m)}\n`);
  if (line.bad === undefined) return text;
  const at = text.indexOf('AB') + 1;
  return Buffer.concat([text.subarray(0, at), Buffer.from([line.bad]), text.subarray(at)]);
}

const lineArb = fc.record({
  kind: fc.constantFrom<Kind>('request', 'notification', 'response'),
  id: fc.oneof(fc.nat(1e6), fc.string({ unit: fc.constantFrom('a', 'z', '7', '-'), minLength: 1, maxLength: 6 })),
  idFirst: fc.boolean(),
  bad: fc.option(fc.constantFrom(...BAD), { nil: undefined, freq: 2 }),
  cut: fc.double({ min: 0, max: 1, noNaN: true }),
});

async function session(lines: Line[]) {
  const dir = mkdtempSync(join(tmpdir(), 'mpc-refused-'));
  const record = join(dir, 'seen.ndjson');
  const s = new CliSession(['wrap', process.execPath, RECORDER, record]);
  for (const line of lines) {
    const b = bytesOf(line);
    const cut = Math.floor(line.cut * b.length);
    s.child.stdin.write(b.subarray(0, cut));
    s.child.stdin.write(b.subarray(cut));
  }
  // Every refused request is answered before the client's input ends (no timeout).
  const answered = lines.filter((l) => l.bad !== undefined && l.kind === 'request');
  for (const l of answered) await s.response(l.id);
  const ended = await s.end();
  let seen: unknown[] = [];
  try {
    seen = readFileSync(record, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
  } catch {}
  return { s, ended, seen };
}

describe('wrap: a refused client line whose ids can be read', () => {
  it('answers its requests, tells the server about its responses, forwards nothing of it', async () => {
    // Unique ids: each answer is found by its id.
    const linesArb = fc.uniqueArray(lineArb, { minLength: 1, maxLength: 12, selector: (l) => l.id });
    await fc.assert(
      fc.asyncProperty(linesArb, async (lines) => {
        const { s, ended, seen } = await session(lines);
        const messages = s.messages() as { id?: unknown; error?: { code: number; message: string } }[];
        for (const [n, l] of lines.entries()) {
          const answers = messages.filter((m) => m.id === l.id && m.error);
          const told = seen.filter((m) => (m as { id?: unknown; error?: unknown }).id === l.id && (m as { error?: unknown }).error);
          const forwarded = seen.some((m) => (m as { id?: unknown }).id === l.id && !(m as { error?: unknown }).error);
          if (l.bad === undefined) {
            expect(forwarded || l.kind === 'notification').toBe(true);
            expect(answers).toEqual([]);
            continue;
          }
          expect(forwarded).toBe(false);
          const expected = l.kind === 'request' ? 1 : 0;
          expect(answers).toHaveLength(expected);
          expect(told).toHaveLength(l.kind === 'response' ? 1 : 0);
          for (const e of [
            ...answers.map((m) => m.error!),
            ...told.map((m) => (m as { error: { code: number; message: string } }).error),
          ]) {
            expect(e.code).toBe(-32700);
            expect(e.message).toMatch(
              new RegExp(`^message ${n + 1} from the client was refused \\(invalid UTF-8 at byte \\d+\\) and not forwarded$`),
            );
          }
        }
        // The server gets what it is sent and told in the client's order.
        const reaching = lines.filter(
          (l) => (l.bad === undefined && l.kind !== 'notification') || (l.bad !== undefined && l.kind === 'response'),
        );
        expect(seen.map((m) => (m as { id?: unknown }).id).filter((id) => id !== undefined)).toEqual(reaching.map((l) => l.id));
        // The client gets nothing but the answers, and the notes name places only.
        expect(messages.every((m) => m.error)).toBe(true);
        expect(ended.stderr).not.toContain('AB');
      }),
      runs(4),
    );
  }, 120_000);

  it('a batch: one batch answer for its requests; the server told about its response; a clean batch goes on', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mpc-refused-'));
    const record = join(dir, 'seen.ndjson');
    const s = new CliSession(['wrap', process.execPath, RECORDER, record]);
    const batch = JSON.stringify([
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'w', arguments: { text: 'AB' } } },
      { jsonrpc: '2.0', method: 'notifications/x' },
      { jsonrpc: '2.0', id: 'srv-1', result: {} },
      { jsonrpc: '2.0', id: 2, method: 'ping' },
    ]);
    const at = batch.indexOf('AB') + 1;
    s.child.stdin.write(Buffer.concat([Buffer.from(batch.slice(0, at)), Buffer.from([0xc0]), Buffer.from(`${batch.slice(at)}\n`)]));
    // Too deep for no one, but a type that is both image and text: refused as a conflict.
    s.child.stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'x', params: { content: [{ type: 'image' }] } }).replace('"image"', '"image","type":"text"')}\n`,
    );
    s.send({ jsonrpc: '2.0', id: 4, method: 'ping' });
    await s.response(3);
    const ended = await s.end();
    const batches = s.messages().filter(Array.isArray) as { id: unknown; error: { code: number } }[][];
    expect(batches).toHaveLength(1);
    expect(batches[0]!.map((m) => [m.id, m.error.code])).toEqual([
      [1, -32700],
      [2, -32700],
    ]);
    const three = (await s.response(3)) as unknown as { error: { code: number; message: string } };
    expect(three.error.code).toBe(-32600);
    const seen = readFileSync(record, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(seen.map((m) => [m.id, m.error?.code ?? m.method])).toEqual([
      ['srv-1', -32700],
      [4, 'ping'],
    ]);
    expect(ended.stderr).toMatch(
      /from the client: skipped message 1 \(invalid UTF-8 at byte \d+; blank lines not counted\): not forwarded \(answered, the server told\)/,
    );
  }, 30_000);
});

describe('wrap: a refused client line, numbered and ordered as the stream has it', () => {
  const recorded = (record: string) =>
    readFileSync(record, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { id?: unknown; error?: { code: number }; method?: string });

  it('a long line refused at an early byte: the server is told before the lines after it', async () => {
    // Past 256 KiB the decoder refuses at the bad byte, before the line ends; the line's end and
    // the next line then come in one chunk. The error used to reach the server after the next line.
    const record = join(mkdtempSync(join(tmpdir(), 'mpc-refused-')), 'seen.ndjson');
    const s = new CliSession(['wrap', process.execPath, RECORDER, record]);
    s.child.stdin.write(
      Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":"srv-1","result":{"x":"A'), Buffer.from([0xff]), Buffer.alloc(400_000, 'B')]),
    );
    await new Promise((r) => setTimeout(r, 300)); // (read apart from what follows)
    s.child.stdin.write('"}}\n{"jsonrpc":"2.0","id":9,"method":"ping"}\n');
    await s.until(() => s.stderr.includes('the server told'));
    await s.end();
    expect(recorded(record).map((m) => [m.id, m.error?.code ?? m.method])).toEqual([
      ['srv-1', -32700],
      [9, 'ping'],
    ]);
  }, 30_000);

  it('a blank line over --max-message-bytes is a message to the stream: the next refusal answers its own ids', async () => {
    // The stream refuses the blank line as too large before it can know it is blank, so it counts
    // it; the refused request after it was matched with the line after that (id 6, which the
    // server answers), and id 5 was never answered.
    const record = join(mkdtempSync(join(tmpdir(), 'mpc-refused-')), 'seen.ndjson');
    const s = new CliSession(['wrap', '--max-message-bytes', '100', process.execPath, RECORDER, record]);
    const bad = Buffer.concat([
      Buffer.from('{"jsonrpc":"2.0","id":5,"method":"ping","params":{"x":"A'),
      Buffer.from([0xff]),
      Buffer.from('"}}\n'),
    ]);
    s.child.stdin.write(
      Buffer.concat([Buffer.from(`${' '.repeat(200)}\n`), bad, Buffer.from('{"jsonrpc":"2.0","id":6,"method":"ping"}\n')]),
    );
    await s.until(() => (s.stderr.match(/skipped message/g) ?? []).length === 2);
    await s.end();
    const answers = (s.messages() as { id?: unknown; error?: { code: number } }[]).map((m) => [m.id, m.error?.code]);
    expect(answers).toEqual([[5, -32700]]);
    expect(recorded(record).map((m) => m.id)).toEqual([6]);
  }, 30_000);
});

describe('wrap: a refused server line whose ids can be read', () => {
  // The mirror of the client's case: a response from the server with invalid UTF-8 (a Python
  // server writing surrogate-escaped file bytes, say) was dropped with a note, and the client
  // waited for its timeout; a request from the server likewise waited forever.
  const SERVER = `import sys
sys.stdout.buffer.write(b'{"jsonrpc":"2.0","id":1,"result":{"t":"A\\xffB"}}\\n')
sys.stdout.buffer.write(b'{"jsonrpc":"2.0","id":"srv-9","method":"sampling/createMessage","params":{"t":"A\\xffB"}}\\n')
sys.stdout.flush()
while True:
    line = sys.stdin.readline()
    if not line:
        break
    sys.stderr.write('SERVER GOT ' + line)
    sys.stderr.flush()
`;
  it('answers the client under its request id and the server under its own', async () => {
    const s = new CliSession(['wrap', 'python3', '-c', SERVER]);
    s.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
    const answer = await s.response(1);
    expect(answer.error.code).toBe(-32700);
    expect(answer.error.message).toMatch(/^message 1 from the server was refused \(invalid UTF-8 at byte \d+\) and not forwarded$/);
    await s.until(() => s.stderr.split('SERVER GOT').length > 2);
    const ended = await s.end();
    const told = ended.stderr
      .split('\n')
      .filter((l) => l.startsWith('SERVER GOT '))
      .map((l) => JSON.parse(l.slice('SERVER GOT '.length)) as { id: unknown; method?: string; error?: { code: number } });
    // (The ping and the error reach the server in whichever order the two sides are read.)
    expect(told.map((m) => [m.id, m.error?.code ?? m.method]).sort()).toEqual([
      [1, 'ping'],
      ['srv-9', -32700],
    ]);
    expect(s.messages().filter((m) => (m as { method?: unknown }).method)).toEqual([]);
    expect(ended.stderr).not.toContain('AB');
  }, 30_000);
});
