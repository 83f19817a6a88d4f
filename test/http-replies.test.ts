// What the HTTP proxy (and the fetch wrapper) does with a body whose decoded keys collide: a
// response to the server's own request, alone or a batch of them, goes on to the server as an
// error under each id. A batch failed before: the host got 400, the server nothing, and it
// waited for its answers forever.
import { describe, expect, it } from 'vitest';
import { PayloadKeyCollisionError } from '../src/errors.ts';
import { collisionOutcome, refusalOutcome } from '../src/http/replies.ts';
import { PayloadStreamError } from '../src/stream/stream-error.ts';

const COLLIDING = { action: 'accept', content: { Qwen: 'a', __mcp_ref_5177656e__: 'b' } };
const error = new PayloadKeyCollisionError(['result', 'content'], [0, 1]);
const body = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));
const parsed = (b: Uint8Array | undefined) => (b ? JSON.parse(new TextDecoder().decode(b)) : undefined);
const s1 = { jsonrpc: '2.0', id: 's1', result: COLLIDING };
const s2 = { jsonrpc: '2.0', id: 7, result: { action: 'decline' } };
const failed = (id: unknown) => ({ jsonrpc: '2.0', id, error: { code: -32602, message: error.message } });

describe('collisionOutcome: responses from the host', () => {
  it('one response: the server gets an error under its id', async () => {
    const outcome = await collisionOutcome(body(s1), error, {});
    expect(outcome.reply).toBeUndefined();
    expect(parsed(outcome.forward)).toEqual(failed('s1'));
  });

  it('a batch of responses: the server gets an error under each id', async () => {
    const outcome = await collisionOutcome(body([s1, s2]), error, {});
    expect(outcome.reply).toBeUndefined();
    expect(parsed(outcome.forward)).toEqual([failed('s1'), failed(7)]);
  });

  it('a batch with a request: the host gets its answers (as before)', async () => {
    const outcome = await collisionOutcome(body([s1, { jsonrpc: '2.0', id: 3, method: 'tools/list' }]), error, {});
    expect(outcome.forward).toBeUndefined();
    expect(outcome.reply?.status).toBe(200);
  });
});

describe('refusalOutcome: a body the decoder refused, read leniently', () => {
  const refused = new PayloadStreamError('invalid-utf8', 'invalid UTF-8', 1, 40);
  const bad = (v: unknown) => {
    const text = JSON.stringify(v);
    const at = text.indexOf('AB') + 1;
    return new Uint8Array([...new TextEncoder().encode(text.slice(0, at)), 0xff, ...new TextEncoder().encode(text.slice(at))]);
  };
  it('a batch of a request and a response: the host gets its answer, the server its error', async () => {
    const outcome = await refusalOutcome(bad([{ jsonrpc: '2.0', id: 3, method: 'ping', params: { t: 'AB' } }, s2]), refused, {});
    expect(outcome.reply?.status).toBe(200);
    expect(parsed(outcome.reply?.body)).toMatchObject([{ id: 3, error: { code: -32700 } }]);
    expect(parsed(outcome.forward)).toMatchObject([{ id: 7, error: { code: -32700 } }]);
  });
  it('a notification: 400, id null, nothing forwarded', async () => {
    const outcome = await refusalOutcome(bad({ jsonrpc: '2.0', method: 'n', params: { t: 'AB' } }), refused, {});
    expect(outcome.forward).toBeUndefined();
    expect(outcome.reply?.status).toBe(400);
    expect(parsed(outcome.reply?.body)).toMatchObject({ id: null, error: { code: -32700 } });
  });
});
