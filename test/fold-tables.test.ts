// The committed tables are what scripts/gen-fold.mjs makes from this engine's Unicode data:
// if the engine's Unicode version moves, this fails until the tables are generated again.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without types
import { render } from '../scripts/gen-fold.mjs';
import { foldData, foldText } from '../src/fold/unicode.ts';

describe('fold tables', () => {
  // (no WASM involved: once is enough)
  it.skipIf(process.env.MCP_PAYLOAD_CODEC_WASM === 'scalar')('are current for this engine', () => {
    expect(render()).toBe(readFileSync(new URL('../src/fold/tables.ts', import.meta.url), 'utf8'));
  });

  it.skipIf(process.env.MCP_PAYLOAD_CODEC_WASM === 'scalar')('decode to the fold of every code point', () => {
    const { folds } = foldData();
    const wrong: number[] = [];
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const ch = String.fromCodePoint(cp);
      const f = folds.get(cp);
      if ((f === undefined ? ch : String.fromCodePoint(...f)) !== foldText(ch)) wrong.push(cp);
    }
    expect(wrong).toEqual([]);
  });
});
