// What the HTTP proxy (and the fetch wrapper) does with a body whose decoded keys collide: a
// response to the server's own request, alone or a batch of them, goes on to the server as an
// error under each id. A batch failed before: the host got 400, the server nothing, and it
// waited for its answers forever.
import { describe, expect, it } from 'vitest';
import { PayloadKeyCollisionError } from '../src/errors.ts';
import { collisionOutcome } from '../src/http/replies.ts';

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
