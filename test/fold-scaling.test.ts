// fold 'nfkc': ignorables between the letters of a term are part of the match, however many
// there are (capping them would let a term through); one such match costs linear time.
import { describe, expect, it } from 'vitest';
import { createCodec } from '../src/index.ts';
import { growth, LINEAR_BOUND } from './scaling.ts';

describe("fold 'nfkc' on a term spread by ignorables", () => {
  const codec = createCodec({ fold: 'nfkc' });
  const spread = (n: number) => `q${'\u200B'.repeat(n)}wen`;

  it('is one token that decodes to the text, and 4x the ignorables cost about 4x', () => {
    const text = spread(1000);
    const encoded = codec.encodeText(text);
    expect(encoded.startsWith('__mcp_ref_71') && encoded.endsWith('656e__') && !encoded.includes('\u200B')).toBe(true);
    expect(codec.decodeText(encoded)).toBe(text);
    const run = (n: number) => () => void codec.encodeText(spread(n));
    expect(growth(run(100_000), run(400_000))).toBeLessThan(LINEAR_BOUND);
  });
});
