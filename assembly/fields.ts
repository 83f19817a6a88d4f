// The keys the transducer acts on: the JSON-RPC envelope, media and resource shapes, and the
// protocol fields of the MCP schema. src/codec/protocol-fields.ts states the policy;
// json/envelope.ts applies it by path with these ids; test/field-policy.test.ts holds the two
// to each other.

export const KEY_OTHER: u32 = 0;
export const KEY_PARAMS: u32 = 1;
export const KEY_RESULT: u32 = 2;
export const KEY_ERROR: u32 = 3;
export const KEY_ID: u32 = 4;
export const KEY_TYPE: u32 = 5;
export const KEY_DATA: u32 = 6;
export const KEY_META: u32 = 7;
export const KEY_BLOB: u32 = 8;
export const KEY_URI: u32 = 9;
export const KEY_PROGRESS_TOKEN: u32 = 10;
export const KEY_REQUEST_ID: u32 = 11;
export const KEY_PROTOCOL_VERSION: u32 = 12;
export const KEY_CURSOR: u32 = 13;
export const KEY_NEXT_CURSOR: u32 = 14;
export const KEY_TASK_ID: u32 = 15;
export const KEY_ELICITATION_ID: u32 = 16;
export const KEY_TASK: u32 = 17;
export const KEY_TASKS: u32 = 18;
export const KEY_TOOLS: u32 = 19;
export const KEY_INPUT_SCHEMA: u32 = 20;
export const KEY_OUTPUT_SCHEMA: u32 = 21;
export const KEY_MAX_LENGTH: u32 = 22;
// Schema keywords whose value maps names to schemas.
export const KEY_PROPERTIES: u32 = 23;
export const KEY_PATTERN_PROPERTIES: u32 = 24;
export const KEY_DEFS: u32 = 25;
export const KEY_DEFINITIONS: u32 = 26;
export const KEY_DEPENDENT_SCHEMAS: u32 = 27;
// Schema keywords whose value is data.
export const KEY_CONST: u32 = 28;
export const KEY_DEFAULT: u32 = 29;
export const KEY_ENUM: u32 = 30;
export const KEY_EXAMPLES: u32 = 31;
// `params.url` (URL elicitation, 2025-11-25): the page the host opens for the user.
export const KEY_URL: u32 = 32;

/** The longest key here (`patternProperties`): keys are collected up to this many bytes. */
export const LONGEST_KEY: u32 = 17;

// [id, length, bytes...] per key, then 0.
// prettier-ignore
const TABLE = memory.data<u8>([
  1, 6, 0x70, 0x61, 0x72, 0x61, 0x6d, 0x73, // params
  2, 6, 0x72, 0x65, 0x73, 0x75, 0x6c, 0x74, // result
  3, 5, 0x65, 0x72, 0x72, 0x6f, 0x72, // error
  4, 2, 0x69, 0x64, // id
  5, 4, 0x74, 0x79, 0x70, 0x65, // type
  6, 4, 0x64, 0x61, 0x74, 0x61, // data
  7, 5, 0x5f, 0x6d, 0x65, 0x74, 0x61, // _meta
  8, 4, 0x62, 0x6c, 0x6f, 0x62, // blob
  9, 3, 0x75, 0x72, 0x69, // uri
  10, 13, 0x70, 0x72, 0x6f, 0x67, 0x72, 0x65, 0x73, 0x73, 0x54, 0x6f, 0x6b, 0x65, 0x6e, // progressToken
  11, 9, 0x72, 0x65, 0x71, 0x75, 0x65, 0x73, 0x74, 0x49, 0x64, // requestId
  12, 15, 0x70, 0x72, 0x6f, 0x74, 0x6f, 0x63, 0x6f, 0x6c, 0x56, 0x65, 0x72, 0x73, 0x69, 0x6f, 0x6e, // protocolVersion
  13, 6, 0x63, 0x75, 0x72, 0x73, 0x6f, 0x72, // cursor
  14, 10, 0x6e, 0x65, 0x78, 0x74, 0x43, 0x75, 0x72, 0x73, 0x6f, 0x72, // nextCursor
  15, 6, 0x74, 0x61, 0x73, 0x6b, 0x49, 0x64, // taskId
  16, 13, 0x65, 0x6c, 0x69, 0x63, 0x69, 0x74, 0x61, 0x74, 0x69, 0x6f, 0x6e, 0x49, 0x64, // elicitationId
  17, 4, 0x74, 0x61, 0x73, 0x6b, // task
  18, 5, 0x74, 0x61, 0x73, 0x6b, 0x73, // tasks
  19, 5, 0x74, 0x6f, 0x6f, 0x6c, 0x73, // tools
  20, 11, 0x69, 0x6e, 0x70, 0x75, 0x74, 0x53, 0x63, 0x68, 0x65, 0x6d, 0x61, // inputSchema
  21, 12, 0x6f, 0x75, 0x74, 0x70, 0x75, 0x74, 0x53, 0x63, 0x68, 0x65, 0x6d, 0x61, // outputSchema
  22, 9, 0x6d, 0x61, 0x78, 0x4c, 0x65, 0x6e, 0x67, 0x74, 0x68, // maxLength
  23, 10, 0x70, 0x72, 0x6f, 0x70, 0x65, 0x72, 0x74, 0x69, 0x65, 0x73, // properties
  24, 17, 0x70, 0x61, 0x74, 0x74, 0x65, 0x72, 0x6e, 0x50, 0x72, 0x6f, 0x70, 0x65, 0x72, 0x74, 0x69, 0x65, 0x73, // patternProperties
  25, 5, 0x24, 0x64, 0x65, 0x66, 0x73, // $defs
  26, 11, 0x64, 0x65, 0x66, 0x69, 0x6e, 0x69, 0x74, 0x69, 0x6f, 0x6e, 0x73, // definitions
  27, 16, 0x64, 0x65, 0x70, 0x65, 0x6e, 0x64, 0x65, 0x6e, 0x74, 0x53, 0x63, 0x68, 0x65, 0x6d, 0x61, 0x73, // dependentSchemas
  28, 5, 0x63, 0x6f, 0x6e, 0x73, 0x74, // const
  29, 7, 0x64, 0x65, 0x66, 0x61, 0x75, 0x6c, 0x74, // default
  30, 4, 0x65, 0x6e, 0x75, 0x6d, // enum
  31, 8, 0x65, 0x78, 0x61, 0x6d, 0x70, 0x6c, 0x65, 0x73, // examples
  32, 3, 0x75, 0x72, 0x6c, // url
  0,
]);

// keyId's index: a perfect hash of (first two bytes, last two bytes, length) into 64 slots,
// each holding the address of its TABLE entry (0: none), filled from TABLE at instantiation.
// KEY_HASH was searched for so that no two keys share a slot; adding a key that collides traps
// at instantiation (test/kernel-key-id.test.ts then fails: search another multiplier).
const KEY_HASH: u32 = 0x02c53e5b;
const KEY_SLOTS = memory.data(64 * 4);

@inline function keySlot(p: usize, n: u32): usize {
  const x = (<u32>load<u16>(p) | (<u32>load<u16>(p + <usize>n - 2) << 16)) + n;
  return KEY_SLOTS + (<usize>((x * KEY_HASH) >> 26) << 2);
}

for (let e = TABLE; load<u8>(e) != 0; e += 2 + <usize>load<u8>(e, 1)) {
  const slot = keySlot(e + 2, <u32>load<u8>(e, 1));
  if (load<u32>(slot) != 0) unreachable();
  store<u32>(slot, <u32>e);
}

/** The id of the decoded key at p (n bytes; only its first LONGEST_KEY were kept), or KEY_OTHER. */
@inline export function keyId(p: usize, n: u32): u32 {
  if (n < 2 || n > LONGEST_KEY) return KEY_OTHER;
  const e = <usize>load<u32>(keySlot(p, n));
  if (e == 0 || <u32>load<u8>(e, 1) != n || !sameBytes(p, e + 2, n)) return KEY_OTHER;
  return <u32>load<u8>(e);
}

/** n (2 to LONGEST_KEY) bytes equal, compared with overlapping wide loads (none past n). */
@inline function sameBytes(a: usize, b: usize, n: u32): bool {
  const m = <usize>n;
  if (m < 4) return load<u16>(a) == load<u16>(b) && load<u16>(a + m - 2) == load<u16>(b + m - 2);
  if (m < 8) return load<u32>(a) == load<u32>(b) && load<u32>(a + m - 4) == load<u32>(b + m - 4);
  if (m > 16 && load<u64>(a + 8) != load<u64>(b + 8)) return false;
  return load<u64>(a) == load<u64>(b) && load<u64>(a + m - 8) == load<u64>(b + m - 8);
}

/** Members of `params` that are protocol (PARAMS_RULE). */
export function paramsKeeps(id: u32): bool {
  return (
    id == KEY_PROGRESS_TOKEN ||
    id == KEY_REQUEST_ID ||
    id == KEY_PROTOCOL_VERSION ||
    id == KEY_CURSOR ||
    id == KEY_TASK_ID ||
    id == KEY_ELICITATION_ID ||
    id == KEY_URL
  );
}

/** Members of `result` that are protocol (RESULT_RULE). */
export function resultKeeps(id: u32): bool {
  return id == KEY_PROTOCOL_VERSION || id == KEY_NEXT_CURSOR || id == KEY_TASK_ID;
}

export function isNameMapKeyword(id: u32): bool {
  return id >= KEY_PROPERTIES && id <= KEY_DEPENDENT_SCHEMAS;
}

export function isDataKeyword(id: u32): bool {
  return id >= KEY_CONST && id <= KEY_EXAMPLES;
}
