// The MCP rules of the JSON-RPC envelope: which values are payload (`params`, `result`,
// `error`, but not `_meta` nor the protocol fields of protocol-fields.ts), which keys start a
// media deferral (media.ts), and where tool schemas have a `maxLength` to widen. Judged by path
// (depth relative to the message, and the key ids of the levels between), never by `method`,
// which a stream may see after `params`.
import {
  D_WIDEN, EV_KEY, EV_KEY_CHANGED, J_DEPTH, J_DESC, J_ENV, J_L1, J_MODE, J_MSG_LEVEL, J_PHASE, J_ROOT_PAYLOAD, J_SCHEMA_AT,
  J_SKIP_AT, J_SMALL, J_SMALL_LEN, J_STR_CHANGED, J_STR_START, J_VALUE, JSON_DECODE, JSON_ENCODE, P_COLON, ROOT_MESSAGE,
} from '../abi';
import {
  isDataKeyword, isNameMapKeyword, keyId, KEY_BLOB, KEY_DATA, KEY_ERROR, KEY_ID, KEY_INPUT_SCHEMA, KEY_MAX_LENGTH, KEY_META,
  KEY_OUTPUT_SCHEMA, KEY_PARAMS, KEY_RESULT, KEY_TASK, KEY_TASK_ID, KEY_TASKS, KEY_TOOLS, KEY_TYPE, KEY_URI, paramsKeeps,
  resultKeeps,
} from '../fields';
import { sawUri } from './media';
import {
  entry, event, get, K_NAME_MAP, K_OBJ, K_PAYLOAD, set, st, top, V_BLOB, V_DATA, V_ID, V_MAX_LENGTH, V_NAME_MAP, V_PAYLOAD,
  V_SCHEMA, V_SKIP, V_TYPE,
} from './state';

/** Payload flag for a value starting now, and the deferral of a `data` value. */
export function valueFlags(): u32 {
  return get(J_DEPTH) == 0 ? rootValueFlags() : memberFlags(top(), get(J_VALUE));
}

/** valueFlags of the root value: payload unless the input is a message. */
@inline export function rootValueFlags(): u32 {
  return get(J_ROOT_PAYLOAD) != ROOT_MESSAGE ? V_PAYLOAD : 0;
}

/** valueFlags of a value in the container whose stack entry is `k`: `keyV`, its key's rules, in an object. */
@inline export function memberFlags(k: u32, keyV: u32): u32 {
  return (k & K_OBJ) == 0 ? ((k & K_PAYLOAD) != 0 ? V_PAYLOAD : 0) : keyV;
}

/** A key ended (its text at `end` in the output): what its value will be. */
export function keyEnd(end: u32): bool {
  const v = keyRules(st + J_SMALL, get(J_SMALL_LEN), get(J_DEPTH), get(J_MSG_LEVEL), top());
  if (get(J_DEPTH) != get(J_MSG_LEVEL) && (top() & K_PAYLOAD) != 0 && get(J_MODE) == JSON_DECODE) {
    event(get(J_STR_CHANGED) != 0 ? EV_KEY_CHANGED : EV_KEY, get(J_STR_START), end);
  }
  set(J_VALUE, v);
  set(J_PHASE, P_COLON);
  return true;
}

/**
 * What the value of the key just read (its decoded bytes at p, n of them; only the first
 * LONGEST_KEY need be there) will be, by its path: `depth` of its object (J_DEPTH), `level` of
 * the message (J_MSG_LEVEL), `k` its object's stack entry; notes an envelope member and a `uri`.
 * (indexed-members.ts `payloadMembers` gives a key with no rule of its own what this gives it,
 * without calling it: a rule for such keys goes there too.)
 */
@inline export function keyRules(p: usize, n: u32, depth: u32, level: u32, k: u32): u32 {
  if (depth != level && (k & K_PAYLOAD) == 0) return 0;
  return idRules(keyId(p, n), depth, level, k);
}

/** keyRules of a key whose id (keyId) the caller has, in an object with payload or the message's. */
@inline export function idRules(id: u32, depth: u32, level: u32, k: u32): u32 {
  if (depth == level) return messageKey(id);
  let v = V_PAYLOAD;
  if (id == KEY_META) v = 0; // metadata for software, wherever it nests
  else if (id == KEY_TYPE) v |= V_TYPE;
  else if (id == KEY_DATA) v |= V_DATA;
  else if (id == KEY_BLOB) v |= V_BLOB;
  else if (id == KEY_URI) sawUri();
  if (level != 0 && depth > level) v = envelopeRules(v, id, depth, level);
  if (get(J_SCHEMA_AT) != 0) v = schemaRules(v, id, depth, k);
  return v;
}

/** keyRules of a key of the message object (key id `id`): which member holds the payload. */
@inline export function messageKey(id: u32): u32 {
  const payload = id == KEY_PARAMS || id == KEY_RESULT || id == KEY_ERROR;
  set(J_ENV, payload ? id : 0);
  return payload ? V_PAYLOAD : id == KEY_ID ? V_ID : 0;
}

/** The protocol fields of PARAMS_RULE and RESULT_RULE (src/codec/protocol-fields.ts), by path. */
@inline function envelopeRules(v: u32, id: u32, depth: u32, level: u32): u32 {
  const env = get(J_ENV);
  if (depth == level + 1) {
    set(J_L1, id);
    if ((env == KEY_PARAMS && paramsKeeps(id)) || (env == KEY_RESULT && resultKeeps(id))) return 0;
    return v;
  }
  if (env != KEY_RESULT) return v;
  const l1 = get(J_L1);
  if (depth == level + 2) return l1 == KEY_TASK && id == KEY_TASK_ID ? 0 : v; // result.task.taskId
  if (depth == level + 3 && (entry(level + 2) & K_OBJ) == 0) {
    if (l1 == KEY_TASKS && id == KEY_TASK_ID) return 0; // result.tasks[].taskId
    // result.tools[].inputSchema / outputSchema: encoding widens their maxLength.
    if (l1 == KEY_TOOLS && (id == KEY_INPUT_SCHEMA || id == KEY_OUTPUT_SCHEMA) && widening()) return v | V_SCHEMA;
  }
  return v;
}

@inline function widening(): bool {
  return get(J_MODE) == JSON_ENCODE && load<u32>((get(J_DESC) as usize) + D_WIDEN) > 1;
}

/** Inside a tool schema: which members are schema keywords that matter to maxLength. */
function schemaRules(v: u32, id: u32, depth: u32, k: u32): u32 {
  if (depth + 1 < get(J_SCHEMA_AT) || get(J_SKIP_AT) != 0 || (k & K_NAME_MAP) != 0) return v;
  if (id == KEY_MAX_LENGTH) return v | V_MAX_LENGTH;
  if (isNameMapKeyword(id)) return v | V_NAME_MAP;
  if (isDataKeyword(id)) return v | V_SKIP;
  return v;
}
