// wrap --guard's partial batches alone: the proxy's answers to part of a batch go out in the
// server's answer to the rest (one batch response), after its single answer, or at the end.
// Held to a plain reference: the server's elements, then the proxy's answers (encoded).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PartialBatches } from '../src/cli/partial-batches.ts';
import { createCodec, encodeText } from '../src/index.ts';
import type { Message } from '../src/jsonrpc/message.ts';
import { runs } from './arbitraries.ts';

const codec = createCodec();
const utf8 = new TextEncoder();
const text = new TextDecoder();
const answer = (id: number, said = 'ok'): Message => ({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: said }] } });

describe('PartialBatches', () => {
  it("adds the proxy's answers before the ']' of the server's answer to the same batch; other lines pass as they are", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 0, max: 50 }), { minLength: 2, maxLength: 8 }),
        fc.integer({ min: 1, max: 7 }),
        fc.constantFrom('', ' ', '\t'),
        (ids, cut, space) => {
          const at = Math.min(cut, ids.length - 1);
          const [ours, theirs] = [ids.slice(0, at), ids.slice(at)];
          const batches = new PartialBatches(codec);
          batches.add(
            new Set(theirs),
            ours.map((id) => answer(id, 'Qwen')),
          );
          const other = utf8.encode(`[${space}{"jsonrpc":"2.0","id":999,"result":{}}${space}]`);
          expect(batches.merge(other)).toBe(other);
          const server = theirs.map((id) => `{"jsonrpc":"2.0","id":${id},"result":{}}`);
          const merged = text.decode(batches.merge(utf8.encode(`[${space}${server.join(`,${space}`)}${space}]`)));
          const added = ours.map((id) => JSON.stringify(answer(id, encodeText('Qwen'))));
          expect(merged).toBe(`[${space}${server.join(`,${space}`)}${space},${added.join(',')}]`);
          expect(batches.size).toBe(0);
        },
      ),
      runs(50),
    );
  });

  it('gives the answers after a single answer of the server to one of the batch, or at the end, once', () => {
    const batches = new PartialBatches(codec);
    batches.add(new Set([1, 2]), [answer(3)]);
    batches.add(new Set(['a']), [answer(4)]);
    expect(batches.single(5)).toBeUndefined();
    expect(batches.single(2)).toEqual([answer(3)]);
    expect(batches.single(1)).toBeUndefined();
    expect(batches.takeAll()).toEqual([[answer(4)]]);
    expect(batches.takeAll()).toEqual([]);
  });
});
