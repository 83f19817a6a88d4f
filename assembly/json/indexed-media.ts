// A `data` value whose object's `type` is not yet known, on the indexed path (indexed.ts). The
// per-message path copies it and has the host hold it until the type is known; here the whole
// message is in view, so the rest of its object is read ahead for what settles it, as media.ts
// would: a `type` (a string `image` or `audio`: kept; anything else: transformed), a second
// `data` first (JSON.parse keeps the last: this one is kept), or the object's end (transformed).
// In a payload object `type` and `data` are always those roles (no protocol field of
// src/codec/protocol-fields.ts is named so). What it cannot read plainly (an escaped key or `type`,
// a tool schema around it, JSON that is not valid) goes to the host as before. One look reads
// at most the rest of the message; a message reads ahead at most AHEAD times its length (four
// such `data` members, or more that share it), past that the host takes it: a `data` in a
// `data` in a `data`... would otherwise be read once per level. An object or array `data` (log
// and error data; media data is a string) is not read ahead: indexed.ts takes it as text, and
// reads the message again this way should a media `type` or a second `data` follow.
import { J_SCHEMA_AT } from '../abi';
import { BACKSLASH, BRACE_CLOSE, BRACE_OPEN, BRACKET_CLOSE, BRACKET_OPEN, COLON, COMMA, QUOTE } from '../bytes';
import { KEY_DATA, KEY_TYPE, keyId } from '../fields';
import { isWs } from './lexer';
import { isMediaType } from './media';
import { get } from './state';

/** dataAhead's answers. */
export const DATA_TRANSFORM: i32 = 0;
export const DATA_KEEP: i32 = 1;
export const DATA_HOST: i32 = -1;

const AHEAD: i32 = 4;
let gBudget: i32 = 0; // bytes the message may still read ahead

/** A message of n bytes starts. */
export function startAhead(n: i32): void {
  gBudget = AHEAD * n;
}

/** What becomes of the `data` value starting at i of the n bytes at inp, by the rest of its object. */
export function dataAhead(inp: usize, i: i32, n: i32): i32 {
  if (get(J_SCHEMA_AT) != 0) return DATA_HOST; // (a schema's rules would reach into it: the host's transform has none)
  const end = min(n, i + min(gBudget, n));
  let depth: i32 = 0; // containers open since i
  let j = i;
  while (j < end) {
    const b = <u32>load<u8>(inp + <usize>j);
    if (b == QUOTE) {
      j = stringClose(inp, j, end, false);
      if (j < 0) break;
    } else if (b == BRACE_OPEN || b == BRACKET_OPEN) depth++;
    else if (b == BRACE_CLOSE || b == BRACKET_CLOSE) {
      if (depth == 0) {
        gBudget -= j - i;
        return b == BRACE_CLOSE ? DATA_TRANSFORM : DATA_HOST; // its object ends with no `type`
      }
      depth--;
    } else if (b == COMMA && depth == 0) {
      // The next member's key.
      j = skipWs(inp, j + 1, end);
      if (j >= end || load<u8>(inp + <usize>j) != QUOTE) break;
      const k = stringClose(inp, j, end, true);
      if (k < 0) break;
      const id = keyId(inp + <usize>(j + 1), <u32>(k - j - 1));
      if (id == KEY_DATA) {
        gBudget -= k - i;
        return DATA_KEEP;
      }
      j = k + 1;
      if (id != KEY_TYPE) continue;
      j = skipWs(inp, j, end);
      if (j >= end || load<u8>(inp + <usize>j) != COLON) break;
      j = skipWs(inp, j + 1, end);
      if (j >= end) break;
      gBudget -= j - i;
      if (load<u8>(inp + <usize>j) != QUOTE) return DATA_TRANSFORM; // not a string: not media
      const e = stringClose(inp, j, end, true);
      if (e < 0) return DATA_HOST;
      gBudget -= e - j;
      return isMediaType(inp + <usize>(j + 1), <u32>(e - j - 1)) ? DATA_KEEP : DATA_TRANSFORM;
    }
    j++;
  }
  return DATA_HOST;
}

/** The closing quote of the string opened at j (before end), or -1; `plain`: -1 for one with escapes too. */
function stringClose(inp: usize, j: i32, end: i32, plain: bool): i32 {
  for (let k = j + 1; k < end; k++) {
    const b = <u32>load<u8>(inp + <usize>k);
    if (b == QUOTE) return k;
    if (b == BACKSLASH) {
      if (plain) return -1;
      k++;
    }
  }
  return -1;
}

@inline function skipWs(inp: usize, j: i32, end: i32): i32 {
  while (j < end && isWs(<u32>load<u8>(inp + <usize>j))) j++;
  return j;
}
