// JSON structure and scalars, byte by byte: containers, keys, colons and commas, numbers and
// literals (strings are strings.ts). Whitespace and structure are copied to the output as they
// are; what a value means to MCP is asked of envelope.ts and media.ts as it starts and ends.
import {
  DEFER_BLOB, DEFER_DATA, E_DEPTH, E_SYNTAX, EV_DEFER_END, EV_ID, EV_MSG_END, EV_OBJ_CLOSE, EV_OBJ_OPEN, EV_RESOLVE, J_DEFER_AT,
  J_DEPTH, J_ID_START, J_LIT, J_LIT_LEN, J_LIT_POS, J_MODE, J_MSG_LEVEL, J_NUM, J_NUM_LEN, J_NUM_SIZE, J_PHASE, J_ROOT_PAYLOAD, J_SCALAR,
  J_SCHEMA_AT, J_SKIP_AT, J_STACK_CAP, J_VALUE, JSON_DECODE, P_AFTER, P_COLON, P_DONE, P_KEY, P_SCALAR, P_VALUE,
  RESOLVE_TRANSFORM, ROOT_MESSAGE,
} from '../abi';
import {
  BRACE_CLOSE, BRACE_OPEN, BRACKET_CLOSE, BRACKET_OPEN, CASE_BIT, COLON, COMMA, CR, DIGIT_0, DIGIT_9, DOT, LF, LOWER_E,
  LOWER_F, LOWER_N, LOWER_T, MINUS, PLUS, QUOTE, SPACE, TAB,
} from '../bytes';
import { valueFlags } from './envelope';
import { defer, resolveMedia } from './media';
import { writeMaxLength } from './rewrite';
import {
  emit, error, event, get, K_BLOB_PENDING, K_FIRST, K_MEDIA_SHIFT, K_NAME_MAP, K_OBJ, K_PAYLOAD, K_PENDING, K_URI, MEDIA_UNKNOWN, MEDIA_YES, memberPhase, outPos, put, set,
  setTop, st, top, V_BLOB, V_DATA, V_ID, V_MAX_LENGTH, V_NAME_MAP, V_PAYLOAD, V_SCHEMA, V_SKIP, V_TYPE,
} from './state';
import { stringStart } from './strings';

// J_SCALAR: where a number is (a JSON number's grammar as states), or in a literal.
const S_MINUS: u32 = 1;
const S_ZERO: u32 = 2; // a leading 0
export const S_INT: u32 = 3;
const S_DOT: u32 = 4;
const S_FRACTION: u32 = 5;
const S_E: u32 = 6;
const S_E_SIGN: u32 = 7;
const S_EXPONENT: u32 = 8;
const S_LITERAL: u32 = 10; // true, false or null: J_LIT, J_LIT_POS, J_LIT_LEN

export const LITERALS = memory.data<u8>([0x74, 0x72, 0x75, 0x65, 0x66, 0x61, 0x6c, 0x73, 0x65, 0x6e, 0x75, 0x6c, 0x6c]); // true false null

@inline export function isWs(b: u32): bool { return b == SPACE || b == LF || b == CR || b == TAB; }

/** The literal (true, false, null) that starts with b, in LITERALS, or -1; and its length. */
@inline export function literalAt(b: u32): i32 { return b == LOWER_T ? 0 : b == LOWER_F ? 4 : b == LOWER_N ? 9 : -1; }
@inline export function literalLength(b: u32): u32 { return b == LOWER_F ? 5 : 4; }

/** The number state after its first byte (a '-' or a digit). */
@inline export function numberStart(b: u32): u32 { return b == MINUS ? S_MINUS : b == DIGIT_0 ? S_ZERO : S_INT; }

export function structuralByte(b: u32): bool {
  const phase = get(J_PHASE);
  if (isWs(b)) {
    put(b);
    return true;
  }
  if (phase == P_VALUE) return valueStart(b);
  if (phase == P_KEY) {
    if (b == QUOTE) return stringStart(true);
    if (b == BRACE_CLOSE && (top() & K_FIRST) != 0) return closeContainer(b);
    return error(E_SYNTAX);
  }
  if (phase == P_COLON) {
    if (b != COLON) return error(E_SYNTAX);
    put(b);
    set(J_PHASE, P_VALUE);
    return true;
  }
  if (phase == P_AFTER) {
    const k = top();
    if (b == COMMA) {
      put(b);
      set(J_PHASE, memberPhase(k));
      return true;
    }
    if ((b == BRACE_CLOSE && (k & K_OBJ) != 0) || (b == BRACKET_CLOSE && (k & K_OBJ) == 0)) return closeContainer(b);
    return error(E_SYNTAX);
  }
  return error(E_SYNTAX); // P_DONE: only whitespace may follow the value
}

export function valueStart(b: u32): bool {
  const depth = get(J_DEPTH);
  if (b == BRACKET_CLOSE && depth > 0 && (top() & (K_OBJ | K_FIRST)) == K_FIRST) return closeContainer(b);
  let v = valueFlags();
  if (depth > 0) setTop(top() & ~K_FIRST);
  if ((v & V_DATA) != 0) {
    const media = (top() >> K_MEDIA_SHIFT) & 3;
    if (media == MEDIA_YES) v &= ~V_PAYLOAD;
    else if (media == MEDIA_UNKNOWN) {
      // `data` before `type`: copy it as it is, and let the host hold it until the type is known.
      v &= ~V_PAYLOAD;
      defer(K_PENDING, DEFER_DATA);
    }
  } else if ((v & V_BLOB) != 0) {
    v &= ~V_PAYLOAD;
    // `blob` before `uri`: the same, until the object has a `uri` or ends without one.
    if ((top() & K_URI) == 0) defer(K_BLOB_PENDING, DEFER_BLOB);
  }
  if ((v & V_ID) != 0) set(J_ID_START, outPos());
  if ((v & V_TYPE) != 0 && b != QUOTE && !resolveMedia(false)) return false; // a `type` that is not a string
  set(J_VALUE, v);
  if (b == BRACE_OPEN || b == BRACKET_OPEN) {
    if (depth + 1 >= get(J_STACK_CAP)) return error(E_DEPTH);
    put(b);
    const obj = b == BRACE_OPEN;
    enterContainer(obj, v, depth);
    if (obj && (v & V_PAYLOAD) != 0 && get(J_MODE) == JSON_DECODE) event(EV_OBJ_OPEN, 0, 0);
    set(J_PHASE, obj ? P_KEY : P_VALUE);
    return true;
  }
  if (b == QUOTE) return stringStart(false);
  if (b == MINUS || (b >= DIGIT_0 && b <= DIGIT_9)) {
    set(J_SCALAR, numberStart(b));
    set(J_NUM_LEN, 0);
    if ((v & V_MAX_LENGTH) != 0 && b != MINUS) set(J_NUM_LEN, 1); // held until it ends, then widened
    scalarOut(b);
    set(J_PHASE, P_SCALAR);
    return true;
  }
  const lit = literalAt(b);
  if (lit < 0) return error(E_SYNTAX);
  set(J_SCALAR, S_LITERAL);
  set(J_LIT, <u32>(LITERALS + <usize>lit));
  set(J_LIT_POS, 1);
  set(J_LIT_LEN, literalLength(b));
  put(b);
  set(J_PHASE, P_SCALAR);
  return true;
}

/** A container with value flags v opens at `depth` (its entry goes on the stack; limit checked). */
export function enterContainer(obj: bool, v: u32, depth: u32): void {
  if (depth == 0 && get(J_ROOT_PAYLOAD) == ROOT_MESSAGE) set(J_MSG_LEVEL, obj ? 1 : 2);
  set(J_DEPTH, depth + 1);
  setTop((obj ? K_OBJ : 0) | ((v & V_PAYLOAD) != 0 ? K_PAYLOAD : 0) | K_FIRST | ((v & V_NAME_MAP) != 0 ? K_NAME_MAP : 0));
  if ((v & V_SCHEMA) != 0) set(J_SCHEMA_AT, depth + 2);
  if ((v & V_SKIP) != 0) set(J_SKIP_AT, depth + 2);
}

/** The container at `depth` (the current one) is closing: the schema regions it holds end. */
export function leaveContainer(depth: u32): void {
  if (get(J_SCHEMA_AT) == depth + 1) set(J_SCHEMA_AT, 0);
  if (get(J_SKIP_AT) == depth + 1) set(J_SKIP_AT, 0);
}

function closeContainer(b: u32): bool {
  const k = top();
  const depth = get(J_DEPTH);
  leaveContainer(depth);
  if ((k & K_OBJ) != 0) {
    if ((k & K_PENDING) != 0) resolveMedia(false); // no `type`: not media
    if ((k & K_BLOB_PENDING) != 0) event(EV_RESOLVE, RESOLVE_TRANSFORM, DEFER_BLOB); // no `uri`: text
    if ((k & K_PAYLOAD) != 0 && get(J_MODE) == JSON_DECODE) event(EV_OBJ_CLOSE, 0, 0);
    if (get(J_DEPTH) == get(J_MSG_LEVEL) && get(J_MODE) == JSON_DECODE) event(EV_MSG_END, 0, 0);
  }
  put(b);
  set(J_DEPTH, get(J_DEPTH) - 1);
  return valueEnd();
}

/** A value just ended at the current depth. */
export function valueEnd(): bool {
  const depth = get(J_DEPTH);
  const v = get(J_VALUE);
  if (get(J_DEFER_AT) == depth + 1) {
    event(EV_DEFER_END, outPos(), 0);
    set(J_DEFER_AT, 0);
  }
  if ((v & V_ID) != 0 && depth == get(J_MSG_LEVEL)) event(EV_ID, get(J_ID_START), outPos());
  set(J_VALUE, 0);
  set(J_PHASE, depth == 0 ? P_DONE : P_AFTER);
  return true;
}

/** The number state after byte b (a JSON number's grammar), or 0 where the number cannot go on. */
@inline export function numberNext(s: u32, b: u32): u32 {
  const digit = b - DIGIT_0 < 10;
  const e = (b | CASE_BIT) == LOWER_E;
  if (s == S_INT || s == S_FRACTION) return digit ? s : b == DOT && s == S_INT ? S_DOT : e ? S_E : 0;
  if (s == S_EXPONENT || s == S_DOT || s == S_E_SIGN) return digit ? (s == S_DOT ? S_FRACTION : S_EXPONENT) : 0;
  if (s == S_MINUS) return b == DIGIT_0 ? S_ZERO : digit ? S_INT : 0;
  if (s == S_ZERO) return b == DOT ? S_DOT : e ? S_E : 0;
  if (s == S_E) return digit ? S_EXPONENT : b == PLUS || b == MINUS ? S_E_SIGN : 0;
  return 0;
}

/**
 * Reads the bytes of the current scalar from i on, in one loop with its state in locals, and
 * writes them out. Returns where it stopped: a byte that does not continue it (the scalar
 * ends there), or len (it may go on in the next chunk).
 */
export function scalarRun(inp: usize, i: i32, len: i32): i32 {
  let s = get(J_SCALAR);
  let j = i;
  if (s == S_LITERAL) {
    const lit = get(J_LIT) as usize;
    const n = get(J_LIT_LEN);
    let pos = get(J_LIT_POS);
    while (j < len && pos < n && load<u8>(inp + <usize>j) == load<u8>(lit + <usize>pos)) {
      pos++;
      j++;
    }
    set(J_LIT_POS, pos);
  } else {
    while (j < len) {
      const next = numberNext(s, <u32>load<u8>(inp + <usize>j));
      if (next == 0) break;
      s = next;
      j++;
    }
    set(J_SCALAR, s);
  }
  if (get(J_NUM_LEN) == 0) emit(inp + <usize>i, <usize>(j - i));
  else for (let k = i; k < j; k++) scalarOut(<u32>load<u8>(inp + <usize>k));
  return j;
}

/** A byte of a scalar goes out, or into J_NUM while a maxLength number is held. */
export function scalarOut(b: u32): void {
  const n = get(J_NUM_LEN);
  if (n == 0) {
    put(b);
    return;
  }
  if (n > <u32>J_NUM_SIZE) {
    // Too long to be a count it could widen: write what is held, and the rest as it comes.
    for (let k: u32 = 0; k < n - 1; k++) put(<u32>load<u8>(st + J_NUM + <usize>k));
    set(J_NUM_LEN, 0);
    put(b);
    return;
  }
  store<u8>(st + J_NUM + <usize>(n - 1), <u8>b);
  set(J_NUM_LEN, n + 1);
}

/** Whether a number may end in state s. */
@inline export function numberComplete(s: u32): bool {
  return s == S_ZERO || s == S_INT || s == S_FRACTION || s == S_EXPONENT;
}

/** The scalar ended (a delimiter or the end of the message): it must be complete. */
export function scalarEnd(): bool {
  const s = get(J_SCALAR);
  const ok = s == S_LITERAL ? get(J_LIT_POS) == get(J_LIT_LEN) : numberComplete(s);
  if (!ok) return error(E_SYNTAX);
  if (get(J_NUM_LEN) != 0) writeMaxLength();
  set(J_SCALAR, 0);
  return valueEnd();
}
