// Stage 2 of the indexed path: a whole message transformed by visiting its structure and its
// strings, not each byte. Stage 1 (structural.ts) hands over the strings' delimiting quotes;
// the few bytes between strings (structure, whitespace, numbers, literals) are read here with
// the parser's state in locals; what a key or a value means to MCP is asked of the same rules
// the byte-by-byte transducer asks (envelope.ts, media.ts), once per key and value. The output
// is the input copied in long runs, broken only where a string changes (indexed-text.ts reads
// the strings, indexed-rewrite.ts writes the output).
//
// It takes the common case and refuses the rest before anything is kept, and the per-message
// path takes that message (whole.ts): anything that is not valid JSON (that path reports where),
// values the host must hold (a `blob` before its `uri`; a `data` before its `type` only where
// indexed-media.ts cannot read the rest of its object plainly; an object or array `data` is
// taken as text without reading ahead), and,
// decoding, a key that decoding changes.
import {
  J_DEPTH, J_MODE, J_OUT_LEN, J_NUM_SIZE, J_ROOT_PAYLOAD, J_SCHEMA_AT, J_STACK, J_STACK_CAP, JSON_ENCODE, P_AFTER, P_COLON, P_DONE, P_KEY, P_VALUE,
  ROOT_TEXT,
} from '../abi';
import { BRACE_CLOSE, BRACE_OPEN, BRACKET_CLOSE, BRACKET_OPEN, COLON, COMMA, DIGIT_0, DIGIT_9, MINUS, QUOTE, SPACE } from '../bytes';
import { memberFlags, rootValueFlags } from './envelope';
import { copyTo, startRewrite, transformText, transformUriHeader, widenMaxLength } from './indexed-rewrite';
import { DATA_HOST, DATA_KEEP, DATA_TRANSFORM, dataAhead, startAhead } from './indexed-media';
import { arrayValues, gMembersDepth, gMembersKeyV, gMembersPhase, messageMembers, payloadMembers } from './indexed-members';
import { gDec, gDecLen, INDEXED_HOST, INDEXED_REFUSED, readString, startText } from './indexed-text';
import { enterContainer, isWs, LITERALS, leaveContainer, literalAt, literalLength, numberComplete, numberNext, numberStart, S_INT } from './lexer';
import { isMediaType, isWholeDataUri, resolveMedia } from './media';
import {
  begin, done, get, K_DATA_TAKEN, K_FIRST, K_MEDIA_SHIFT, K_OBJ, K_PAYLOAD, K_URI, MEDIA_UNKNOWN, MEDIA_YES, entryIn, memberPhase, set, setTop, top, V_BLOB,
  V_DATA, V_MAX_LENGTH, V_PAYLOAD, V_TYPE,
} from './state';
import { indexStart } from './structural';
import { resetMessage } from './transducer';

// A container `data` taken as text before its object's `type` turned out to be media: the
// message is read again, each `data` of unknown media read ahead (indexed-media.ts).
const INDEXED_AGAIN: i32 = -3;
// Objects open that took a container `data` so: past TAKEN_NESTING the message is read again
// that way too, as deep nesting of `data` before `type` was (the host refuses it past 32 levels;
// reading ahead gives such a message to the host).
const TAKEN_NESTING: u32 = 8;
let gTakenOpen: u32 = 0;

/**
 * Transforms the n bytes at `inp` (one whole message) into `out`, as the per-message path would
 * and with the same state left for the rules; returns the bytes written, INDEXED_REFUSED or
 * INDEXED_HOST.
 */
export function indexedMessage(state: usize, inp: usize, n: i32, out: usize): i32 {
  const written = indexedPass(state, inp, n, out, true);
  if (written != INDEXED_AGAIN) return written;
  gReadAgain++;
  return indexedPass(state, inp, n, out, false);
}

let gReadAgain: u32 = 0;

/** Tests: how many messages were read again (INDEXED_AGAIN). */
export function indexedAgain(): u32 {
  return gReadAgain;
}

/**
 * indexedMessage; `speculate`: an object or array `data` whose object's `type` is not yet known
 * is transformed without reading ahead (log and error data), or INDEXED_AGAIN.
 */
function indexedPass(state: usize, inp: usize, n: i32, out: usize, speculate: bool): i32 {
  begin(state, out);
  resetMessage();
  gTakenOpen = 0;
  indexStart(inp, n);
  const encoding = get(J_MODE) == JSON_ENCODE;
  startText(inp, encoding);
  startRewrite(n, encoding);
  startAhead(n);
  const stack = get(J_STACK) as usize; // (the container stack: the current entry at stack + 2 * depth)
  let i: i32 = 0;
  let phase = P_VALUE;
  let depth: u32 = 0;
  // (In locals, handed to the rules: the message's level, J_MSG_LEVEL; the last key's rules, J_VALUE.)
  let level: u32 = 0;
  let keyV: u32 = 0;
  while (true) {
    let b: u32 = 0;
    while (i < n) {
      b = <u32>load<u8>(inp + <usize>i);
      if (b > SPACE || !isWs(b)) break; // (most bytes are past the space: one test)
      i++;
    }
    if (i >= n) break;
    let closes = false;
    if (phase == P_KEY) {
      if (b == BRACE_CLOSE && (entryIn(stack, depth) & K_FIRST) != 0) closes = true;
      else {
        if (b != QUOTE) return INDEXED_HOST;
        // (A payload object's members, and the message object's (entered as no payload): in loops of their own.)
        const at = stack + (<usize>depth << 1);
        if ((<u32>load<u16>(at) & K_PAYLOAD) != 0 || depth == level) {
          i = depth == level ? messageMembers(inp, i, n, at, level, encoding) : payloadMembers(inp, i, n, at, depth, level, encoding);
          if (i < 0) return i;
          if (depth == level) depth = gMembersDepth; // (the message's loop reads its payload object's members too)
          phase = gMembersPhase;
          keyV = gMembersKeyV;
          // (Most often the object's `}` follows at once: closed in this turn, not the next.)
          if (phase != P_AFTER || i >= n || (b = <u32>load<u8>(inp + <usize>i)) != BRACE_CLOSE) continue;
        } else {
          // (Any other object holds no payload (`_meta`'s, a protocol field's, an id's): its keys have no rule.)
          const e = readString(i, false);
          if (e < 0) return e;
          keyV = 0;
          i = e + 1;
          // (The colon and the value most often follow at once: read in this turn, not the next two.)
          phase = P_COLON;
          if (i >= n || load<u8>(inp + <usize>i) != COLON) continue;
          phase = P_VALUE;
          if (++i >= n) continue;
          b = <u32>load<u8>(inp + <usize>i);
          if (b <= SPACE) continue;
        }
      }
    }
    if (phase == P_VALUE) {
      if (b == BRACKET_CLOSE && depth > 0 && (entryIn(stack, depth) & (K_OBJ | K_FIRST)) == K_FIRST) closes = true;
      else if (depth > 0 && (entryIn(stack, depth) & K_OBJ) == 0 && b != BRACKET_OPEN && (b != BRACE_OPEN || (entryIn(stack, depth) & K_PAYLOAD) != 0)) {
        i = arrayValues(inp, i, n, stack + (<usize>depth << 1), depth, level, encoding); // (an array's values: their loop)
        if (i < 0) return i;
        phase = gMembersPhase;
        depth = gMembersDepth;
        keyV = gMembersKeyV;
        // (As after an object's members: the array's `]` closed in this turn.)
        if (phase != P_AFTER || i >= n || load<u8>(inp + <usize>i) != BRACKET_CLOSE || (entryIn(stack, depth) & K_OBJ) != 0) continue;
        closes = true;
      } else {
        // (valueFlags, with the depth, the entry and the key's rules in locals.)
        let v: u32 = 0;
        if (depth == 0) v = rootValueFlags();
        else {
          const at = stack + (<usize>depth << 1);
          const k = <u32>load<u16>(at);
          v = memberFlags(k, keyV);
          store<u16>(at, <u16>(k & ~K_FIRST));
        }
        if ((v & (V_DATA | V_BLOB)) != 0) {
          const flags = opaqueValue(v, b, inp, i, n, speculate);
          if (flags < 0) return flags;
          v = <u32>flags;
        }
        if ((v & V_TYPE) != 0 && b != QUOTE && !resolveMedia(false)) return INDEXED_HOST;
        if (b == BRACE_OPEN || b == BRACKET_OPEN) {
          if (depth + 1 >= get(J_STACK_CAP)) return INDEXED_HOST;
          const obj = b == BRACE_OPEN;
          enterContainer(obj, v, depth);
          if (depth == 0 && v == 0) level = obj ? 1 : 2;
          depth++;
          phase = obj ? P_KEY : P_VALUE;
          i++;
          continue;
        }
        if (b == QUOTE) {
          const e = readString(i, (v & V_TYPE) == 0); // (a `type` is compared)
          if (e < 0) return e;
          if ((v & V_PAYLOAD) != 0) {
            // (A bare string the host already knows is not a data: URI is not looked at again;
            // decoding looks at none: a token in a data: URI is restored.)
            const uriCheck = encoding && (depth > 0 || get(J_ROOT_PAYLOAD) != ROOT_TEXT);
            if (!(uriCheck && gDecLen > 0 && isWholeDataUri(gDec, gDecLen))) transformText(i + 1, e, gDecLen);
            else if (!transformUriHeader(i + 1, e)) return INDEXED_REFUSED;
          }
          if ((v & V_TYPE) != 0) {
            const media = isMediaType(gDec, <u32>gDecLen);
            if (!resolveMedia(media)) return INDEXED_HOST;
            if (media && (entryIn(stack, depth) & K_DATA_TAKEN) != 0) return INDEXED_AGAIN; // its `data` is kept
          }
          i = e + 1;
        } else {
          i = b == MINUS || (b >= DIGIT_0 && b <= DIGIT_9) ? numberEnd(inp, i, n, b, v) : literalEnd(inp, i, n, b);
          if (i < 0) return i;
        }
        // (A comma most often follows at once: read here, not by another turn of the loop.)
        if (depth == 0) phase = P_DONE;
        else if (i < n && load<u8>(inp + <usize>i) == COMMA) {
          phase = memberPhase(entryIn(stack, depth));
          i++;
        } else phase = P_AFTER;
        continue;
      }
    } else if (phase == P_COLON) {
      if (b != COLON) return INDEXED_HOST;
      phase = P_VALUE;
      i++;
      continue;
    } else if (phase == P_AFTER) {
      const k = entryIn(stack, depth);
      if (b == COMMA) {
        phase = memberPhase(k);
        i++;
        continue;
      }
      if (b != ((k & K_OBJ) != 0 ? BRACE_CLOSE : BRACKET_CLOSE)) return INDEXED_HOST;
      closes = true;
    } else if (phase != P_KEY) return INDEXED_HOST; // P_DONE: only whitespace may follow the value (P_KEY: a `}` closes)
    if (!closes) return INDEXED_HOST;
    depth = closeRun(inp, i, n, stack, depth);
    i = gRunAt;
    phase = gRunPhase;
  }
  if (phase != P_DONE) return phase == P_VALUE && depth == 0 ? INDEXED_REFUSED : INDEXED_HOST; // only whitespace (a blank line), or cut short
  copyTo(n);
  done();
  return <i32>get(J_OUT_LEN);
}

// Where closeRun stopped: the position and the phase stage 2 resumes in.
let gRunAt: i32 = 0;
let gRunPhase: u32 = 0;

/**
 * Closes the container at `depth` (its `}` or `]` at `i`) and each whose close follows at once (a
 * message ends with two or three), not a turn of stage 2's loop each; a comma after the last is
 * read too. Returns the depth left, with gRunAt and gRunPhase. (No `data` or `blob` of these
 * objects waits: those were refused.)
 */
@inline function closeRun(inp: usize, i: i32, n: i32, stack: usize, depth: u32): u32 {
  let phase = P_AFTER;
  while (true) {
    if ((entryIn(stack, depth) & K_DATA_TAKEN) != 0) gTakenOpen--;
    leaveContainer(depth);
    depth--;
    i++;
    if (depth == 0) {
      phase = P_DONE;
      break;
    }
    if (i >= n) break;
    const c = <u32>load<u8>(inp + <usize>i);
    const k = entryIn(stack, depth);
    if (c == COMMA) {
      phase = memberPhase(k);
      i++;
      break;
    }
    if (c != ((k & K_OBJ) != 0 ? BRACE_CLOSE : BRACKET_CLOSE)) break;
  }
  set(J_DEPTH, depth);
  gRunAt = i;
  gRunPhase = phase;
  return depth;
}

/**
 * The flags of a `data` or `blob` value (V_DATA, V_BLOB in `v`) at byte `b`, position `i`: its
 * V_PAYLOAD dropped where it is opaque bytes, or INDEXED_AGAIN / INDEXED_HOST. A `data` object
 * or array whose object's `type` is unknown is taken as text when speculating (indexedPass).
 */
@inline function opaqueValue(v: u32, b: u32, inp: usize, i: i32, n: i32, speculate: bool): i32 {
  const k = top();
  if ((v & V_DATA) != 0) {
    const media = (k >> K_MEDIA_SHIFT) & 3;
    if (media == MEDIA_UNKNOWN && (k & K_DATA_TAKEN) != 0) return INDEXED_AGAIN; // a second `data` first: the taken one is kept
    if (media == MEDIA_UNKNOWN && speculate && (b == BRACE_OPEN || b == BRACKET_OPEN)) {
      // (Media data is a string: an object or array is taken as text, and taken back if a
      // media `type` or a second `data` follows; a schema's rules would reach into it.)
      if (get(J_SCHEMA_AT) != 0) return INDEXED_HOST;
      if (++gTakenOpen > TAKEN_NESTING) return INDEXED_AGAIN;
      setTop(k | K_DATA_TAKEN);
      return <i32>v;
    }
    const ahead = media == MEDIA_UNKNOWN ? dataAhead(inp, i, n) : DATA_TRANSFORM; // (the host would hold it until the type is known)
    if (ahead == DATA_HOST) return INDEXED_HOST;
    return <i32>(media == MEDIA_YES || ahead == DATA_KEEP ? v & ~V_PAYLOAD : v);
  }
  if ((k & K_URI) == 0) return INDEXED_HOST; // a `blob`: held until the object's `uri` is known
  return <i32>(v & ~V_PAYLOAD);
}

/**
 * Where the number that starts with byte `b` at `i` ends, or INDEXED_HOST; a tool schema's
 * maxLength (V_MAX_LENGTH in `v`) written widened, as lexer.ts holds one: up to J_NUM_SIZE bytes.
 */
@inline export function numberEnd(inp: usize, i: i32, n: i32, b: u32, v: u32): i32 {
  const start = i;
  let s = numberStart(b);
  i++;
  // (An integer's digits in a loop of their own; what may follow them, by the state machine.)
  if (s == S_INT) while (i < n && <u32>load<u8>(inp + <usize>i) - DIGIT_0 < 10) i++;
  while (i < n) {
    const next = numberNext(s, <u32>load<u8>(inp + <usize>i));
    if (next == 0) break;
    s = next;
    i++;
  }
  if (!numberComplete(s)) return INDEXED_HOST;
  if ((v & V_MAX_LENGTH) != 0 && b != MINUS && i - start <= <i32>J_NUM_SIZE) widenMaxLength(start, i);
  return i;
}

/** Where the literal (true, false, null) that starts with byte `b` at `i` ends, or INDEXED_HOST. */
@inline export function literalEnd(inp: usize, i: i32, n: i32, b: u32): i32 {
  const lit = literalAt(b);
  const litLen = <i32>literalLength(b);
  if (lit < 0 || i + litLen > n) return INDEXED_HOST;
  for (let k: i32 = 1; k < litLen; k++) {
    if (load<u8>(inp + <usize>(i + k)) != load<u8>(LITERALS + <usize>(lit + k))) return INDEXED_HOST;
  }
  return i + litLen;
}
