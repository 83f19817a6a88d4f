// NDJSON streams: same meaning as the object API, chunk independence, byte preservation.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createCodec, PayloadKeyCollisionError } from '../src/index.ts';
import { createDecodeStream, createEncodeStream, PayloadStreamError } from '../src/stream/index.ts';
import { fragmentString, runs } from './arbitraries.ts';
import { bytes, choices, oneByteChunks, run, split, text, writeJson } from './stream-helpers.ts';

const codec = createCodec();
const str = fc.oneof(fragmentString(6), fc.string({ unit: 'binary', maxLength: 8 }), fc.constantFrom('Qwen', 'q"w\\en', '通义\n', 'a/b'));
const json = fc.letrec((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    str,
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('v'), { maxLength: 3 }),
    fc.dictionary(str, tie('v'), { maxKeys: 3 }),
  ),
})).v;
const block = fc.oneof(
  fc.record({ type: fc.constant('text'), text: str }),
  fc.record({ type: fc.constantFrom('image', 'audio'), data: str, mimeType: str }),
  fc.record({ data: str, type: fc.constantFrom('image', 'audio', 'text') }), // data before type
  fc.record({ data: json, meta: json }),
);
const message = fc.oneof(
  fc.record({
    jsonrpc: fc.constant('2.0'),
    id: fc.oneof(fc.integer(), str),
    method: str,
    params: fc.dictionary(str, json, { maxKeys: 3 }),
  }),
  fc.record({
    jsonrpc: fc.constant('2.0'),
    id: fc.integer(),
    result: fc.record({ content: fc.array(block, { maxLength: 3 }), structuredContent: json }),
  }),
  fc.record({ jsonrpc: fc.constant('2.0'), id: fc.integer(), error: fc.record({ code: fc.integer(), message: str, data: json }) }),
);
const batch = fc.oneof(message, fc.array(message, { minLength: 1, maxLength: 3 }));

const lines = (out: Uint8Array) => text(out).split('\n').slice(0, -1);

describe('NDJSON encode stream', () => {
  it('means what encodeMessage means, for messages written with escapes and whitespace', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(batch, choices), { minLength: 1, maxLength: 4 }), async (items) => {
        const input = items.map(([m, c]) => writeJson(m, c) + '\n').join('');
        const out = lines(await run(createEncodeStream(), [bytes(input)]));
        expect(out.length).toBe(items.length);
        for (const [i, [m]] of items.entries()) expect(JSON.parse(out[i]!)).toEqual(codec.encodeMessage(JSON.parse(JSON.stringify(m))));
      }),
      runs(300),
    );
  });

  it('gives the same bytes however the input is split', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(batch, choices), { minLength: 1, maxLength: 3 }),
        fc.array(fc.nat(4000), { maxLength: 12 }),
        async (items, cuts) => {
          const input = bytes(items.map(([m, c]) => writeJson(m, c)).join('\r\n'));
          const whole = await run(createEncodeStream(), [input]);
          expect(await run(createEncodeStream(), split(input, cuts))).toEqual(whole);
        },
      ),
      runs(200),
    );
  });

  it('gives the same bytes with one-byte chunks, splitting every character, escape and token', async () => {
    const input = bytes(
      '{"jsonrpc":"2.0","id":1,"result":{"t":"阿里 😀 \\u0071wen q\\u0077en \\ud83d\\ude00 __mcp_ref_ \\"Qwen\\\\","Qwen":["dash_scope",1.50e3]}}\r\n' +
        '{"jsonrpc":"2.0","id":2,"result":{"content":[{"data":"qwen","type":"image"},{"data":{"Qwen":1},"type":"text"}]}}\n',
    );
    const whole = await run(createEncodeStream(), [input]);
    expect(await run(createEncodeStream(), oneByteChunks(input))).toEqual(whole);
    for (let cut = 0; cut <= input.length; cut++) expect(await run(createEncodeStream(), split(input, [cut]))).toEqual(whole);
  });

  it('keeps a message with nothing to change byte for byte, and bytes outside strings always', async () => {
    const clean =
      '{ "jsonrpc" : "2.0", "id" : 7,\t"result" : { "n" : 1.50e3, "list" : [ true , null , -0.0 ], "s" : "Safari \\u00e9\\/" } }\n';
    expect(text(await run(createEncodeStream(), [bytes(clean)]))).toBe(clean);
    const dirty = '{ "jsonrpc" : "2.0", "id" : 7,\t"result" : { "n" : 1.50e3, "app" : "Qwen" } }\n';
    expect(text(await run(createEncodeStream(), [bytes(dirty)]))).toBe(dirty.replace('Qwen', '__mcp_ref_5177656e__'));
  });

  it('never touches jsonrpc, id or method', async () => {
    const m = '{"jsonrpc":"2.0","id":"Qwen","method":"qwen/open","params":{"app":"Qwen"}}\n';
    expect(text(await run(createEncodeStream(), [bytes(m)]))).toBe(
      '{"jsonrpc":"2.0","id":"Qwen","method":"qwen/open","params":{"app":"__mcp_ref_5177656e__"}}\n',
    );
  });

  it('keeps blank lines and a last line without a newline', async () => {
    const input = '\n{"jsonrpc":"2.0","id":1,"result":"Qwen"}\n\r\n{"jsonrpc":"2.0","id":2,"result":"Qwen"}';
    expect(text(await run(createEncodeStream(), [bytes(input)]))).toBe(input.replaceAll('"Qwen"', '"__mcp_ref_5177656e__"'));
  });

  it('supports the cua-driver format', async () => {
    const out = await run(createEncodeStream({ prefix: '__cuaf_', hexCase: 'upper' }), [bytes('{"result":"qwen"}\n')]);
    expect(text(out)).toBe('{"result":"__cuaf_7177656E__"}\n');
  });
});

describe('NDJSON decode stream', () => {
  it('means what decodeMessage means, and round-trips the encode stream', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(batch, choices), { minLength: 1, maxLength: 3 }),
        fc.array(fc.nat(3000), { maxLength: 6 }),
        async (items, cuts) => {
          const input = items.map(([m, c]) => writeJson(m, c) + '\n').join('');
          const encoded = await run(createEncodeStream(), [bytes(input)]);
          const decoded = lines(await run(createDecodeStream(), split(encoded, cuts)));
          for (const [i, [m]] of items.entries()) expect(JSON.parse(decoded[i]!)).toEqual(JSON.parse(JSON.stringify(m)));
        },
      ),
      runs(200),
    );
  });

  it('refuses exactly the messages decodeMessage refuses for colliding keys, with data values before their type', async () => {
    const key = fc.constantFrom('qwen', 'Qwen', '__mcp_ref_7177656e__', '__mcp_ref_5177656e__', 'a');
    const value = fc.constantFrom('x', '__mcp_ref_7177656e__', '__mcp_ref_e9809ae4b989__ __mcp_ref_71__');
    // Deferred `data` values change length when decoded, moving the keys written after them.
    const obj = fc
      .tuple(value, fc.uniqueArray(key, { maxLength: 3 }), fc.constantFrom('text', 'image'), fc.boolean())
      .map(([data, keys, type, dataFirst]) => {
        const rest = Object.fromEntries(keys.map((k, i) => [k, i]));
        return dataFirst ? { data, ...rest, type } : { ...rest, type, data };
      });
    await fc.assert(
      fc.asyncProperty(
        fc.array(obj, { minLength: 1, maxLength: 3 }),
        fc.dictionary(key, value, { maxKeys: 3 }),
        fc.boolean(),
        async (content, extra, idLast) => {
          // An id written after the result moves when deferred values before it change length.
          const m = idLast
            ? { jsonrpc: '2.0', result: { content, ...extra }, id: 5 }
            : { jsonrpc: '2.0', id: 5, result: { content, ...extra } };
          let expected: unknown;
          try {
            expected = codec.decodeMessage(m);
          } catch (e) {
            expected = e;
          }
          const out = await run(createDecodeStream(), [bytes(JSON.stringify(m) + '\n')]).then(
            (o) => JSON.parse(text(o)),
            (e: unknown) => e,
          );
          if (expected instanceof PayloadKeyCollisionError)
            expect(out).toMatchObject({ name: 'PayloadKeyCollisionError', messageNumber: 1, id: 5 });
          else expect(out).toEqual(expected);
        },
      ),
      runs(300),
    );
  });

  it('decodes the shortest tokens, as keys and values, in both formats', async () => {
    const out = text(await run(createDecodeStream(), [bytes('{"params":{"k":"__mcp_ref_71__","__mcp_ref_71__":"__mcp_ref_7__"}}\n')]));
    expect(out).toBe('{"params":{"k":"q","q":"__mcp_ref_7__"}}\n');
    const cua = text(await run(createDecodeStream({ prefix: '__cuaf_', hexCase: 'upper' }), [bytes('{"params":{"k":"__cuaf_71__"}}\n')]));
    expect(cua).toBe('{"params":{"k":"q"}}\n');
  });

  it('escapes decoded quotes, backslashes and control characters', async () => {
    const token = `__mcp_ref_${Buffer.from('Qwen "a"\\\n\u0001').toString('hex')}__`;
    const out = text(await run(createDecodeStream(), [bytes(`{"params":{"x":"${token}"}}\n`)]));
    expect(out).toBe('{"params":{"x":"Qwen \\"a\\"\\\\\\n\\u0001"}}\n');
    expect(JSON.parse(out).params.x).toBe('Qwen "a"\\\n\u0001');
  });

  it('errors on colliding keys with the message number and id, never the content', async () => {
    const input =
      '{"jsonrpc":"2.0","id":1,"method":"m","params":{}}\n{"jsonrpc":"2.0","id":"req-2","method":"tools/call","params":{"arguments":{"Qwen":"secret","__mcp_ref_5177656e__":"secret"}}}\n';
    const error = await run(createDecodeStream(), [bytes(input)]).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(PayloadKeyCollisionError);
    expect(error).toMatchObject({ messageNumber: 2, id: 'req-2' });
    expect(String(error)).not.toMatch(/secret|Qwen/);
  });

  it('names a long id by its start: the message stays small, the error keeps the whole id', async () => {
    const id = `req-${'x'.repeat(100_000)}`;
    const input = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"Qwen":1,"__mcp_ref_5177656e__":2}}\n`;
    const error = await run(createDecodeStream(), [bytes(input)]).then(
      () => null,
      (e: unknown) => e as PayloadKeyCollisionError,
    );
    expect(error).toBeInstanceOf(PayloadKeyCollisionError);
    expect(error!.message).toContain(`(id "req-${'x'.repeat(60)}"… (100004 characters))`);
    expect(error!.message.length).toBeLessThan(300);
    expect(error).toMatchObject({ id, idText: JSON.stringify(id) }); // (what a proxy answers under)
  });

  it('with onCollision, drops the colliding message and goes on', async () => {
    const seen: unknown[] = [];
    const input =
      '{"id":1,"params":{"a":"__mcp_ref_7177656e__"}}\n{"id":2,"params":{"qwen":1,"__MCP_REF_7177656E__":2}}\n{"id":3,"params":{}}\n';
    const out = text(await run(createDecodeStream({ onCollision: (e) => seen.push(e.id) }), [bytes(input)]));
    expect(out).toBe('{"id":1,"params":{"a":"qwen"}}\n{"id":3,"params":{}}\n');
    expect(seen).toEqual([2]);
  });
});

describe('escaped text', () => {
  it('matches terms that hold escaped characters, in strings of any length around the 16 KiB windows', async () => {
    const options = { terms: { ascii: ['qwen'], exact: ['say "hi"', 'C:\\dir', 'a/b', 'line\nbreak', 'tab\there'], pairs: [] } };
    const custom = createCodec(options);
    const text = 'say "hi" C:\\dir a/b line\nbreak tab\there qwen\n';
    for (const size of [40, 16_300, 16_360, 16_370, 16_376, 16_380, 16_390, 16_420, 40_000]) {
      const body = 'x'.repeat(Math.max(0, size - text.length)) + text;
      // `\/` is valid JSON that JSON.stringify never writes: put one in by hand.
      const line = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { text: body } }).replace('a/b', 'a\\/b');
      const out = await run(createEncodeStream(options), [bytes(line + '\n')]);
      expect(JSON.parse(new TextDecoder().decode(out))).toEqual(custom.encodeMessage(JSON.parse(line)));
    }
  });
});

describe('bad input', () => {
  const failure = async (input: string | Uint8Array, options = {}) => {
    const error = await run(createEncodeStream(options), [typeof input === 'string' ? bytes(input) : input]).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(PayloadStreamError);
    return error as PayloadStreamError;
  };

  it('names message and byte offset for invalid JSON, never the content', async () => {
    const e = await failure('{"id":1,"result":"ok"}\n{"id":2,"result":"secret" x}\n');
    expect(e).toMatchObject({ messageNumber: 2, byteOffset: 26, reason: 'invalid JSON' });
    expect(e.message).toBe('invalid JSON in message 2 at byte 26');
  });

  it('refuses invalid UTF-8, control characters, bad escapes, truncated messages', async () => {
    expect((await failure(new Uint8Array([...bytes('{"result":"a'), 0xff, ...bytes('"}\n')]))).reason).toBe('invalid UTF-8');
    expect((await failure(new Uint8Array([...bytes('{"result":"a'), 0xe9, 0x98, ...bytes('"}\n')]))).reason).toBe('invalid UTF-8');
    expect((await failure('{"result":"a\tb"}\n')).reason).toBe('control character in a JSON string');
    expect((await failure('{"result":"\\x"}\n')).reason).toBe('invalid escape in a JSON string');
    expect((await failure('{"result":"abc\n')).reason).toBe('the message ends before its JSON value does');
    expect((await failure('{"result":[1,2}\n')).reason).toBe('invalid JSON');
    expect((await failure('{"result":1}{"result":2}\n')).reason).toBe('invalid JSON');
    expect(await failure('{"result":[1,2]')).toMatchObject({
      reason: 'the message ends before its JSON value does',
      messageNumber: 1,
      byteOffset: 15,
    });
    expect((await failure('{"result":tru}\n')).reason).toBe('invalid JSON');
    expect((await failure('{"result":01}\n')).reason).toBe('invalid JSON');
  });

  it('refuses a message over maxMessageBytes', async () => {
    const e = await failure(`{"result":"${'x'.repeat(2000)}"}\n`, { maxMessageBytes: 1000 });
    expect(e.message).toMatch(/maxMessageBytes/);
  });

  it('refuses nesting beyond its stack with a clear error, without crashing', async () => {
    const e = await failure('['.repeat(70_000) + ']'.repeat(70_000) + '\n');
    expect(e.reason).toMatch(/nested deeper/);
  });
});

// Messages that are almost right: each case once went wrong, and is named after what must hold.
describe('cut characters, colliding and nested deferred values, blank lines', () => {
  const fails = async (input: Uint8Array, reason: string) => {
    const e = await run(createEncodeStream(), [input]).then(
      () => null,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(PayloadStreamError);
    expect((e as PayloadStreamError).reason).toBe(reason);
  };

  it('refuses a multi-byte character cut by an escape', async () => {
    for (const field of ['method', 'result']) {
      await fails(new Uint8Array([...bytes(`{"${field}":"x`), 0xe4, ...bytes('\\n'), 0xb8, 0xad, ...bytes('x"}\n')]), 'invalid UTF-8');
      await fails(new Uint8Array([...bytes(`{"${field}":"x`), 0xe4, ...bytes('\\u0041'), 0xb8, 0xad, ...bytes('x"}\n')]), 'invalid UTF-8');
      await fails(new Uint8Array([...bytes(`{"${field}":"x`), 0xe4, 0xb8, ...bytes('"}\n')]), 'invalid UTF-8');
    }
  });

  it('with onCollision, drops a message whose deferred data value collides, and goes on', async () => {
    const seen: unknown[] = [];
    const input =
      '{"jsonrpc":"2.0","id":7,"params":{"data":{"qwen":1,"__mcp_ref_7177656e__":2},"type":"text"}}\n{"id":8,"params":{"x":"__mcp_ref_7177656e__"}}\n';
    const out = text(await run(createDecodeStream({ onCollision: (e) => seen.push([e.messageNumber, e.id]) }), [bytes(input)]));
    expect(out).toBe('{"id":8,"params":{"x":"qwen"}}\n');
    expect(seen).toEqual([[1, 7]]);
  });

  it('names the colliding request of a batch, and all ids of the batch', async () => {
    const input = '[{"jsonrpc":"2.0","id":"A","params":{"qwen":1,"__mcp_ref_7177656e__":2}},{"jsonrpc":"2.0","id":"B","params":{}}]\n';
    const e = await run(createDecodeStream(), [bytes(input)]).then(
      () => null,
      (x: unknown) => x,
    );
    expect(e).toMatchObject({ id: 'A', batchIds: ['A', 'B'] });
  });

  it('refuses two "type" keys that disagree, in either order', async () => {
    const reason = 'two "type" keys that disagree in one object (image/audio or not)';
    await fails(bytes('{"result":{"type":"text","data":"qwen","type":"image"}}\n'), reason);
    await fails(bytes('{"result":{"data":"qwen","type":"image","type":"text"}}\n'), reason);
    expect(text(await run(createEncodeStream(), [bytes('{"result":{"type":"image","type":"image","data":"qwen"}}\n')]))).toContain(
      '"data":"qwen"',
    );
  });

  it('refuses data values before their type nested deeper than its limit, without recursion trouble', async () => {
    const nest = (n: number) => '{"data":'.repeat(n) + '"qwen"' + ',"type":"text"}'.repeat(n);
    const ok = text(await run(createEncodeStream(), [bytes(`{"result":${nest(20)}}\n`)]));
    expect(JSON.parse(ok)).toEqual(codec.encodeMessage(JSON.parse(`{"result":${nest(20)}}`)));
    const e = await run(createEncodeStream(), [bytes(`{"result":${nest(2000)}}\n`)]).then(
      () => null,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(PayloadStreamError);
    expect(String(e)).toMatch(/nested more than 32 deep/);
  });

  it('does not count whitespace-only lines as messages', async () => {
    const e = await run(createEncodeStream(), [bytes('\r\n{"id":1}\n{"id":2 x}\n')]).then(
      () => null,
      (x: unknown) => x,
    );
    expect(e).toMatchObject({ messageNumber: 2 });
  });
});
