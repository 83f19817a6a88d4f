// The error answers the HTTP pieces write themselves (404 Session not found, 415, 502, 503, a
// refused or colliding body) go under each request's id as written; a batch of many small
// requests would get an answer several times its size (every error repeats its message). Past
// the limit the user set on a message (maxMessageBytes, but at least 1 MiB: small batches keep
// their answers under a small limit), or V8's longest string, one error under id null stands for
// all, saying how many answers it replaces and never what they held.
import { constants } from 'node:buffer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PayloadKeyCollisionError } from '../src/errors.ts';
import { memoryFullResponse } from '../src/http/memory-full.ts';
import {
  answerLimit,
  collisionOutcome,
  errorBody,
  errorReplies,
  MAX_TEXT_UNITS,
  parseShape,
  refusalOutcome,
  repliesBody,
} from '../src/http/replies.ts';
import { errorResponse } from '../src/jsonrpc/message.ts';
import { PayloadStreamError } from '../src/stream/stream-error.ts';
import { runs } from './arbitraries.ts';

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array | undefined) => new TextDecoder().decode(b);
const MESSAGE = 'Session not found';
const CODE = -32001;

/** An id as a client may write it: canonical numbers and strings, and ids JSON.parse would change. */
const idText = fc.oneof(
  fc.integer().map(String),
  fc.string({ unit: 'binary', maxLength: 12 }).map((s) => JSON.stringify(`id-${s}`)),
  fc.constantFrom('12345678901234567890', '1.0', '-0', '1e2'),
);

/** A request (its id's text) or a notification (null). */
const entry = fc.oneof({ weight: 4, arbitrary: idText }, { weight: 1, arbitrary: fc.constant(null) });

const written = (id: string | null) =>
  id === null ? '{"jsonrpc":"2.0","method":"notifications/x"}' : `{"jsonrpc":"2.0","id":${id},"method":"tools/call"}`;

/** The reference: each request's error, written by hand, under its id as written. */
const perId = (ids: string[]) => ids.map((id) => `{"jsonrpc":"2.0","id":${id},"error":{"code":${CODE},"message":"${MESSAGE}"}}`);

function expectOneForAll(body: Uint8Array, answers: number, limit: number) {
  const text = dec(body);
  expect(JSON.parse(text)).toEqual({
    jsonrpc: '2.0',
    id: null,
    error: { code: CODE, message: `${MESSAGE} (${answers} answers under their ids would be over ${limit} bytes; this one stands for all)` },
  });
  expect(text).not.toContain('id-'); // (no id of the request is echoed)
}

const MiB = 1024 * 1024;
const requests = (n: number) => Array.from({ length: n }, (_, k) => written(String(k)));

describe('error answers under ids, within a limit', () => {
  it('under each id as written when they fit; else one under id null (any batch, any limit)', () => {
    fc.assert(
      fc.property(
        fc.array(entry, { minLength: 1, maxLength: 40 }),
        fc.boolean(),
        fc.integer({ min: -80, max: 80 }),
        (entries, batchOfOne, slack) => {
          const batch = entries.length > 1 || batchOfOne;
          const shape = parseShape(enc(batch ? `[${entries.map(written).join(',')}]` : written(entries[0]!)));
          const ids = entries.filter((e): e is string => e !== null);
          const texts = perId(ids);
          const reference = batch ? `[${texts.join(',')}]` : (texts[0] ?? '');
          const size = enc(reference).length;
          const limit = Math.max(1, size + slack);
          const replies = shape.items.filter((m) => m.request).map((m) => errorResponse(m.id!, CODE, MESSAGE));
          const answer = repliesBody(shape.batch, replies, CODE, MESSAGE, limit);
          if (ids.length === 0) expect(JSON.parse(dec(answer))).toMatchObject({ id: null, error: { code: CODE, message: MESSAGE } });
          else if (size <= limit) expect(dec(answer)).toBe(reference);
          else expectOneForAll(answer, ids.length, limit);
        },
      ),
      runs(300),
    );
  });

  it('the limit: maxMessageBytes, at least 1 MiB, at most the longest string', () => {
    expect(MAX_TEXT_UNITS).toBe(constants.MAX_STRING_LENGTH);
    expect(answerLimit({})).toBe(MAX_TEXT_UNITS); // (the default 512 MiB is 24 units past it)
    expect(answerLimit({ maxMessageBytes: 400 })).toBe(MiB);
    expect(answerLimit({ maxMessageBytes: 8 * MiB })).toBe(8 * MiB);
  });

  it('15,000 requests: answered under each id under a 4 MiB limit, by one under 400 bytes (1 MiB)', async () => {
    const body = enc(`[${requests(15_000).join(',')}]`);
    const wide = await errorReplies(parseShape(body), CODE, MESSAGE, { maxMessageBytes: 4 * MiB });
    expect(dec(wide.body)).toBe(`[${perId(requests(15_000).map((_, k) => String(k))).join(',')}]`);
    const { body: answer } = await errorReplies(parseShape(body), CODE, MESSAGE, { maxMessageBytes: 400 });
    expectOneForAll(answer, 15_000, MiB);
  });

  it('the 503 (not encoded) follows the same rule', async () => {
    const body = enc(`[${written('1')},${written('"id-2"')}]`);
    expect(dec(errorBody(parseShape(body), CODE, MESSAGE))).toBe(`[${perId(['1', '"id-2"']).join(',')}]`);
    expectOneForAll(errorBody(parseShape(body), CODE, MESSAGE, 100), 2, 100);
    // (the proxy's 503 under the limit of its own maxMessageBytes, not the default's)
    const many = enc(`[${requests(15_000).join(',')}]`);
    const answer = await memoryFullResponse(many, answerLimit({ maxMessageBytes: 400 })).text();
    expect(JSON.parse(answer)).toMatchObject({ id: null, error: { code: -32000 } });
    expect(answer).toContain(`(15000 answers under their ids would be over ${MiB} bytes; this one stands for all)`);
    expect(JSON.parse(await memoryFullResponse(many).text())).toHaveLength(15_000);
  });

  it('a refused batch: the host and the server each get one answer past the limit', async () => {
    const refused = new PayloadStreamError('invalid-utf8', 'invalid UTF-8', 1, 40);
    const items = requests(8_000).map((r, k) => `${r},{"jsonrpc":"2.0","id":${k},"result":{}}`);
    const raw = enc(`[{"jsonrpc":"2.0","method":"n","params":{"t":"AB"}},${items.join(',')}]`);
    const at = raw.indexOf(0x42); // (invalid UTF-8 inside a string: read leniently)
    const bad = new Uint8Array(raw.length + 1);
    bad.set(raw.subarray(0, at));
    bad[at] = 0xff;
    bad.set(raw.subarray(at), at + 1);
    const outcome = await refusalOutcome(bad, refused, { maxMessageBytes: 400 });
    for (const b of [outcome.reply!.body, outcome.forward!])
      expect(JSON.parse(dec(b))).toMatchObject({ id: null, error: { code: -32700 } });
    const wide = await refusalOutcome(bad, refused, { maxMessageBytes: 4 * MiB });
    expect(JSON.parse(dec(wide.reply!.body))).toHaveLength(8_000);
    expect(JSON.parse(dec(wide.forward))).toHaveLength(8_000);
  });

  it('colliding responses from the host: the server gets one error past the limit', async () => {
    const error = new PayloadKeyCollisionError(['result'], [0, 1]);
    const body = enc(`[${Array.from({ length: 12_000 }, (_, k) => `{"jsonrpc":"2.0","id":${k},"result":{}}`).join(',')}]`);
    const small = await collisionOutcome(body, error, { maxMessageBytes: 400 });
    expect(JSON.parse(dec(small.forward))).toMatchObject({ id: null, error: { code: -32602 } });
    const wide = await collisionOutcome(body, error, { maxMessageBytes: 4 * MiB });
    expect(JSON.parse(dec(wide.forward))).toHaveLength(12_000);
  });
});
