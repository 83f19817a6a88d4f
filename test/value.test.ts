// JSON values and JSON-RPC messages: what is transformed, what never is, and what is shared.
import { describe, expect, it } from 'vitest';
import {
  decodeMessage,
  decodeValue,
  encodeMessage,
  encodeText,
  encodeValue,
  findReplacementCharacters,
  PayloadKeyCollisionError,
} from '../src/index.ts';

const q = encodeText('Qwen'); // '__mcp_ref_5177656e__'

function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null) {
    for (const child of Object.values(v)) deepFreeze(child);
    Object.freeze(v);
  }
  return v;
}

describe('encodeValue / decodeValue', () => {
  it('transforms keys and string values at every depth; leaves other types alone', () => {
    const v = { Qwen: ['Qwen', 1, true, null, { nested: 'Qwen-app' }], n: 1.5 };
    const e = encodeValue(v);
    expect(e).toEqual({ [q]: [q, 1, true, null, { nested: `${q}-app` }], n: 1.5 });
    expect(decodeValue(e)).toEqual(v);
  });

  it('keeps key order', () => {
    const v = { z: 1, Qwen: 2, a: 3, 阿里: 4 };
    expect(Object.keys(encodeValue(v))).toEqual(['z', '__mcp_ref_5177656e__', 'a', '__mcp_ref_e998bfe9878c__']);
  });

  it('keeps data of image and audio blocks, and transforms their other fields', () => {
    for (const type of ['image', 'audio']) {
      const v = { type, data: 'qwenQWEN阿里==', mimeType: 'image/qwen', _meta: { Qwen: 'Qwen' } };
      const e = encodeValue(v);
      expect(e.data).toBe(v.data);
      expect(e.mimeType).toBe(`image/${encodeText('qwen')}`);
      expect(e._meta).toBe(v._meta); // metadata for software: never payload
      expect(decodeValue(e)).toEqual(v);
    }
    expect(encodeValue({ type: 'text', data: 'qwen' }).data).toBe(encodeText('qwen'));
    expect(encodeValue({ type: 'Image', data: 'qwen' }).data).toBe(encodeText('qwen'));
  });

  it('returns unchanged subtrees, and an unchanged root, as they are', () => {
    const clean = { list: [{ name: 'Safari' }, { name: 'Xcode' }] };
    expect(encodeValue(clean)).toBe(clean);
    const mixed = { clean: { deep: ['a', 'b'] }, dirty: { name: 'Qwen' } };
    const e = encodeValue(mixed);
    expect(e).not.toBe(mixed);
    expect(e.clean).toBe(mixed.clean);
    expect(e.dirty).not.toBe(mixed.dirty);
  });

  it('never mutates its input', () => {
    const v = deepFreeze({ Qwen: [{ a: 'Qwen' }, 'x'], b: { type: 'image', data: 'qwen' } });
    const snapshot = JSON.stringify(v);
    const e = encodeValue(v);
    expect(JSON.stringify(v)).toBe(snapshot);
    decodeValue(e);
    expect(JSON.stringify(e)).toBe(JSON.stringify(encodeValue(JSON.parse(snapshot))));
  });

  it('keeps __proto__ and constructor as own data properties, without pollution', () => {
    const v = JSON.parse('{"__proto__": {"polluted": "Qwen"}, "constructor": {"prototype": "Qwen"}, "x": "Qwen"}');
    for (const out of [encodeValue(v), decodeValue(encodeValue(v))]) {
      expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
      expect(Object.hasOwn(out, '__proto__')).toBe(true);
      expect(Object.hasOwn(out, 'constructor')).toBe(true);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    }
    expect(decodeValue(encodeValue(v))).toEqual(v);
    const escaped = encodeValue(JSON.parse(`{"${encodeText('__proto__')}": 1}`));
    expect(Object.getPrototypeOf(decodeValue(escaped))).toBe(Object.prototype);
  });

  it('reads each member under its own key when a getter deletes a later member', () => {
    // Member values are read in one pass (walk.ts, memberValues); a getter that deletes a member
    // while they are read must not shift the rest onto the wrong keys.
    const o: Record<string, unknown> = {
      get a() {
        delete o.b;
        return 'Qwen';
      },
      b: 'x',
      c: 'qwen',
    };
    const e = encodeValue(o);
    expect(Object.keys(e)).toEqual(['a', 'b', 'c']);
    expect(e).toEqual({ a: q, b: undefined, c: encodeText('qwen') });
  });

  it('reads each member once, under its own key, when a proxy lists its keys in a new order each time', () => {
    // A check of the values against a second listing of the keys passes such a proxy (its
    // first and third listings agree) with two values swapped.
    for (const framed of [false, true]) {
      let listings = 0;
      const reads: string[] = [];
      const target: Record<string, unknown> = { a: 'Qwen one', b: 'plain', ...(framed ? { z: [] } : {}) };
      const order = Object.keys(target);
      const o = new Proxy(target, {
        ownKeys: () => (++listings % 2 === 0 ? [...order].reverse() : order),
        get: (t, k) => {
          reads.push(String(k));
          return t[k as string];
        },
      });
      const e = encodeValue(o);
      expect(e).toEqual({ a: `${q} one`, b: 'plain', ...(framed ? { z: [] } : {}) });
      expect(reads.sort()).toEqual([...order].sort());
    }
  });

  it('reads each member under its own key when a getter deletes one member and shows another', () => {
    // The count of members read stays the same (one gone, a hidden one made enumerable): their
    // values must still go under their own keys, not shift onto the keys before them.
    const o: Record<string, unknown> = {
      get a() {
        delete o.b;
        Object.defineProperty(o, 'h', { enumerable: true });
        return 'Qwen';
      },
      b: 'x',
      c: 'qwen',
    };
    Object.defineProperty(o, 'h', { value: 'Llama', enumerable: false, configurable: true, writable: true });
    const e = encodeValue(o);
    expect(Object.keys(e)).toEqual(['a', 'b', 'c']);
    expect(e).toEqual({ a: q, b: undefined, c: encodeText('qwen') });
  });

  it('handles 100,000 levels of nesting without overflowing the stack', () => {
    let deep: unknown = 'Qwen';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const e = encodeValue(deep);
    const innermost = (v: unknown) => {
      for (let i = 0; i < 100_000; i++) v = (v as unknown[])[0];
      return v;
    };
    expect(innermost(e)).toBe(q);
    expect(innermost(decodeValue(e))).toBe('Qwen');
    expect(findReplacementCharacters([deep, '\uFFFD'])[0]!.path).toEqual([1]);
  });

  it('refuses a cyclic value with a clear error instead of running forever', () => {
    const cyclic: unknown[] = ['Qwen'];
    cyclic.push({ again: cyclic });
    expect(() => encodeValue(cyclic)).toThrow(/cyclic/);
    expect(() => findReplacementCharacters(cyclic)).toThrow(/cyclic/);
  });

  it('accepts a shared, acyclic value met again deeper than the cycle check starts', () => {
    const wrap = (v: unknown, n: number) => {
      for (let i = 0; i < n; i++) v = { next: v };
      return v;
    };
    for (const depth of [1030, 1500]) {
      // `shared` is open near the top on one path (its own subtree reaches past 1,024 levels),
      // then met again past 1,024 levels on another: the same object twice, but no cycle.
      const shared = wrap('Qwen \uFFFD', depth);
      const value = { a: shared, b: wrap(shared, depth), c: [shared, shared] };
      const e = encodeValue(value) as { a: unknown; b: unknown };
      // (compared as JSON text: a recursive deep-equal of 3,000 levels can overflow the stack)
      expect(JSON.stringify(e.a)).toBe(JSON.stringify(encodeValue(shared)));
      expect(JSON.stringify(decodeValue(e))).toBe(JSON.stringify(value));
      expect(findReplacementCharacters(value).total).toBe(4); // (the reports themselves stop at the path budget)
    }
  });
});

describe('key collisions', () => {
  it('rejects keys that decode to the same text, naming the object path only', () => {
    const input = { params: { arguments: { Qwen: 'secret-one', [q]: 'secret-two' } } };
    let error: unknown;
    try {
      decodeValue(input);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(PayloadKeyCollisionError);
    const e = error as PayloadKeyCollisionError;
    expect(e.path).toEqual(['params', 'arguments']);
    expect(e.keyIndexes).toEqual([0, 1]);
    expect(e.message).toContain('$.params.arguments');
    expect(e.message).not.toMatch(/secret|Qwen/);
  });

  it('names the object by a path of bounded length, however long its keys or deep its nesting', () => {
    // (The error's `path` stays whole; its message is logged and sent in answers: it must not
    // grow with the payload.)
    const colliding = () => ({ Qwen: 1, [q]: 2 });
    for (const [keyLength, depth] of [
      [100_000, 1],
      [70, 3],
      [1, 10_000],
      [5_000, 200],
    ] as const) {
      let value: unknown = colliding();
      const path: string[] = [];
      for (let d = 0; d < depth; d++) {
        const key = `${d}k`.padEnd(keyLength, 'k');
        value = { [key]: value };
        path.unshift(key);
      }
      let error: unknown;
      try {
        decodeValue(value);
      } catch (e) {
        error = e;
      }
      const e = error as PayloadKeyCollisionError;
      expect(e).toBeInstanceOf(PayloadKeyCollisionError);
      expect(e.path).toEqual(path);
      expect(e.message.length).toBeLessThan(400);
      expect(e.message).toContain(`the object at $["${path[0]!.slice(0, 5)}`); // (where it starts)
    }
  });

  it('rejects two hex spellings of one token', () => {
    expect(() => decodeValue({ a: [{ __mcp_ref_7177656e__: 1, __MCP_REF_7177656E__: 2 }] })).toThrow(PayloadKeyCollisionError);
  });

  it('never throws when encoding', () => {
    expect(encodeValue({ Qwen: 1, [q]: 2 })).toEqual({ [encodeText('Qwen')]: 1, [encodeText(q)]: 2 });
  });
});

describe('encodeMessage / decodeMessage', () => {
  it('transforms params, result and error only; never jsonrpc, id or method', () => {
    const request = { jsonrpc: '2.0', id: 'Qwen-1', method: 'tools/call/qwen', params: { name: 'open', arguments: { app: 'Qwen' } } };
    const e = encodeMessage(request);
    expect(e).toEqual({ jsonrpc: '2.0', id: 'Qwen-1', method: 'tools/call/qwen', params: { name: 'open', arguments: { app: q } } });
    expect(decodeMessage(e)).toEqual(request);
    const error = { jsonrpc: '2.0', id: 7, error: { code: -32000, message: 'Qwen crashed', data: { app: '通义' } } };
    expect(encodeMessage(error).error).toEqual({ code: -32000, message: `${q} crashed`, data: { app: encodeText('通义') } });
    const result = { jsonrpc: '2.0', id: 8, result: { content: [{ type: 'text', text: 'Qwen' }] } };
    expect(encodeMessage(result).result.content[0]!.text).toBe(q);
  });

  it('handles a batch element by element, sharing unchanged messages', () => {
    const clean = { jsonrpc: '2.0', id: 1, result: { ok: true } };
    const batch = [clean, { jsonrpc: '2.0', method: 'notify', params: { app: 'Qwen' } }, 5, null];
    const e = encodeMessage(batch);
    expect(e[0]).toBe(clean);
    expect(e[1]).toEqual({ jsonrpc: '2.0', method: 'notify', params: { app: q } });
    expect(e.slice(2)).toEqual([5, null]);
    expect(decodeMessage(e)).toEqual(batch);
  });

  it('names the batch index and field in a collision path', () => {
    const batch = [
      { jsonrpc: '2.0', id: 1, result: {} },
      { jsonrpc: '2.0', id: 2, method: 'x', params: { Qwen: 1, [q]: 2 } },
    ];
    expect(() => decodeMessage(batch)).toThrow(expect.objectContaining({ path: [1, 'params'] }));
  });

  it('returns a message with nothing to change as it is', () => {
    const m = { jsonrpc: '2.0', id: 1, result: { tools: [{ name: 'open_app', description: 'Opens an app' }] } };
    expect(encodeMessage(m)).toBe(m);
    expect(decodeMessage(m)).toBe(m);
  });
});
