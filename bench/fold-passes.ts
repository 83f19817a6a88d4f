// What each fold's prefilter lets through on the `fold nfkc` rows' texts, counted from the
// compiled tables in JS (no timing): positions through stage 1 (Teddy) and stage 2 (the hashed
// start set) outside matches, the bytes the automaton walks, and the matches. The core's scan
// (assembly/match.ts) is followed as it runs: fold 'nfkc' tests its ASCII masks up to the
// first block holding a byte >= 0x80 in each 256 KiB region, candidates inside a match are
// dropped. A prefilter change can be read here exactly, where timing it on a shared machine
// moves by more than the change (docs/PERFORMANCE.md).
//   node scripts/run-ts.mjs bench/fold-passes.ts
import { resolveOptions } from '../src/codec/options.ts';
import { compileAutomaton } from '../src/compile/index.ts';
import { gramHash } from '../src/compile/start-set.ts';
import type { CoreTables } from '../src/core/descriptor.ts';
import { DEFAULT_CHUNK_BYTES } from '../src/core/encode-string.ts';
import { disguised } from './cases/fold.ts';
import { cjkText, cleanText, mixedText } from './corpus.ts';

interface Counts {
  stage1: number;
  stage2: number;
  walked: number;
  matches: number;
}

/** Whether the fingerprint at p (4 bytes, folded `| 0x20`) passes any bucket of masks t. */
function teddyPasses(t: Uint8Array, u8: Uint8Array, p: number): boolean {
  let m = 0xff;
  for (let j = 0; j < 4 && m; j++) {
    const b = u8[p + j]! | 0x20;
    m &= t[32 * j + (b & 15)]! & t[32 * j + 16 + (b >> 4)]!;
  }
  return m !== 0;
}

function count(a: CoreTables, u8: Uint8Array): Counts {
  const c: Counts = { stage1: 0, stage2: 0, walked: 0, matches: 0 };
  const words = new DataView(u8.buffer, u8.byteOffset, u8.byteLength);
  for (let region = 0; region < u8.length; region += DEFAULT_CHUNK_BYTES) {
    const end = Math.min(u8.length, region + DEFAULT_CHUNK_BYTES);
    // The ASCII run: whole blocks from the region's start with no byte >= 0x80, less the last 3.
    let asciiEnd = region;
    if (a.teddyAscii) {
      while (asciiEnd + 16 <= end && u8.subarray(asciiEnd, asciiEnd + 16).every((b) => b < 0x80)) asciiEnd += 16;
      asciiEnd -= 3;
    }
    for (let p = region; p + 4 <= end; p++) {
      if (!teddyPasses(p < asciiEnd ? a.teddyAscii! : a.teddy, u8, p)) continue;
      c.stage1++;
      const h = gramHash(((words.getUint32(p, true) | 0x20202020) & a.gramMask) >>> 0);
      if (!(a.grams[h >> 3]! & (1 << (h & 7)))) continue;
      c.stage2++;
      // The walk, leftmost-longest: a match moves p past it.
      let s = 1;
      let best = 0;
      for (let j = p; j < end; j++) {
        s = a.transitions[s * a.classCount + a.classes[u8[j]!]!]!;
        if (s === 0) break;
        c.walked++;
        if (a.accepting[s]) best = j + 1;
      }
      if (best > 0) {
        c.matches++;
        p = best - 1;
      }
    }
  }
  return c;
}

const mixed = mixedText(1, 256 * 1024);
const texts: [string, string][] = [
  ['mixed text 256 KiB', mixed],
  ['clean text 1 MiB', cleanText(4, 1 << 20)],
  ['CJK-heavy text 256 KiB', cjkText(2, 256 * 1024)],
  ['mixed text 256 KiB, every term in lookalikes', disguised(mixed)],
];
const folds = [
  ["fold 'ascii'", compileAutomaton(resolveOptions().patterns)],
  ["fold 'nfkc'", compileAutomaton(resolveOptions({ fold: 'nfkc' }).patterns)],
] as const;
console.log('text | fold | stage 1 | stage 2 | bytes walked | matches');
for (const [name, text] of texts) {
  const u8 = new TextEncoder().encode(text);
  for (const [fold, a] of folds) {
    const c = count(a, u8);
    console.log(`${name} | ${fold} | ${c.stage1} | ${c.stage2} | ${c.walked} | ${c.matches}`);
  }
}
