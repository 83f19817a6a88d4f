// The interface between the core and its host, defined here once: the layout of what the host
// writes into WASM memory for the core (descriptor, transducer state) and the numbers calls
// return or write (modes, records, events, error codes). index.ts exports every constant of
// this file as a WASM global; scripts/build.mjs reads them from the built module into
// src/core/abi.ts (generated), which is where the host takes them from as plain constants.
// test/abi.test.ts fails if the two ever differ, or if src/ spells one of them itself.

// ---- Codec descriptor (written by src/core/descriptor.ts): byte offsets of its fields ----
export const D_TRANS: usize = 0; //      u32 ptr: u16 DFA transitions as row offsets (src/compile/walk-table.ts)
export const D_CLASSES: usize = 4; //    u32 ptr: 256 u8 byte -> class
export const D_ACCEPT_FROM: usize = 8; // u32: states from this entry on accept (a pattern ends there)
export const D_ROW_SHIFT: usize = 12; // u32: a state's row starts at byte (entry << this) of D_TRANS
export const D_TEDDY: usize = 16; //     u32 ptr: 4 x (16 lo-nibble + 16 hi-nibble) bucket masks
export const D_PREFIX: usize = 20; //    u32 ptr: prefix, ASCII lower case (matching)
export const D_PREFIX_LEN: usize = 24; // u32
export const D_PREFIX_OUT: usize = 28; // u32 ptr: prefix as configured (emitted)
export const D_SUFFIX: usize = 32; //    u32 ptr
export const D_SUFFIX_LEN: usize = 36; // u32
export const D_HEX: usize = 40; //       u32 ptr: 16 hex digits in the configured case
export const D_WIDEN: usize = 44; //     u32: factor of maxLength in encoded tool schemas
export const D_MATCHES: usize = 48; //   u32 result: matches or tokens found by the last call
export const D_QUOTE_FREE: usize = 52; // u32: 1 when no match can hold a '"' (none leaves a JSON string)
export const D_GRAMS: usize = 56; //     u32 ptr: 32768-bit set of hashed folded pattern starts
export const D_GRAM_MASK: usize = 60; // u32: which of the 4 loaded bytes the start hash uses
export const D_TEDDY_ASCII: usize = 64; // u32 ptr: D_TEDDY's masks for fingerprints of four ASCII bytes, or 0
export const D_START: usize = 68; //     u32: the start state's entry in D_TRANS
// u32: 1 when every DFA state dies on '"', '\\' and the control bytes the short escapes stand
// for: encoding may then match a string whose escapes are all short ones other than `\/` in its
// raw bytes (json/indexed-text.ts readString says why; decoding always may).
export const D_RAW_ESCAPES: usize = 72;
// u64: which placement in memory this is (the host counts them from 1, never again the same):
// walk.ts keeps a candidate's first steps by it, as a freed descriptor's address is reused.
export const D_SERIAL: usize = 80;
export const DESCRIPTOR_SIZE: usize = 96; // (the tables after it stay 16-byte aligned)

// ---- scan (match.ts): what its records hold, and their size ----
export const MODE_RECORDS: i32 = 1; // [start, end) in UTF-16 units of the input
export const MODE_BYTE_RECORDS: i32 = 2; // [start, end) in bytes (the transducer's own use)
export const MATCH_RECORD_SIZE: u32 = 8; // u32 start, u32 end
// decode.ts (inside the transducer): u32 start, u32 end, u32 decoded bytes (in the aux region)
export const TOKEN_RECORD_SIZE: u32 = 12;

// ---- countReplacement (fffd.ts): its result ----
export const FFFD_COUNT: usize = 0; // u32: how many EF BF BD
export const FFFD_FIRST: usize = 4; // i32: byte offset of the first, -1 if none
export const FFFD_RESULT_SIZE: usize = 8;

// ---- The JSON transducer's state (json/): u32 fields, laid out by src/stream/transducer.ts ----
// The host sets the pointers and capacities (and J_DESC, J_MODE, J_ROOT_PAYLOAD) and reads
// J_PHASE, J_DEPTH, the window lengths, J_EV_COUNT, J_OUT_LEN and J_ERROR; the rest is the
// core's own, kept here so that the struct is one table.
export const J_DESC: usize = 0; // descriptor pointer
export const J_MODE: usize = 4; // JSON_ENCODE or JSON_DECODE
export const J_PHASE: usize = 8; // P_*
export const J_DEPTH: usize = 12;
export const J_STACK: usize = 16; // ptr: STACK_ENTRY_SIZE bytes per depth (json/state.ts K_*)
export const J_STACK_CAP: usize = 20; // entries
export const J_STR: usize = 24; // string flags (json/state.ts STR_*)
export const J_ESC: usize = 28; // 0, 1 after '\', 2..5 reading \u hex digits
export const J_UACC: usize = 32;
export const J_HIGH: usize = 36; // pending high surrogate of a \u escape, or 0
export const J_UTF8_NEED: usize = 40;
export const J_UTF8_LO: usize = 44;
export const J_UTF8_HI: usize = 48;
export const J_SCALAR: usize = 52;
export const J_RAW: usize = 56; // ptr: the raw window (a payload string's bytes as they came)
export const J_RAW_CAP: usize = 60;
export const J_RAW_LEN: usize = 64;
export const J_DEC: usize = 68; // ptr: the decoded window (escapes resolved)
export const J_DEC_CAP: usize = 72;
export const J_DEC_LEN: usize = 76;
export const J_REC: usize = 80; // ptr: match or token records of one window
export const J_AUX: usize = 84; // ptr: decoded token bytes of one window
// Encoding: the automaton's state after the J_CAND_KNOWN bytes of the possible match at the
// start of the windows, and the end of the longest match among them (0: none) (match.ts heldState, heldBest).
export const J_CAND_STATE: usize = 88;
export const J_CAND_BEST: usize = 92;
export const J_SMALL_LEN: usize = 96;
export const J_EVENTS: usize = 100; // ptr: events of one call, EV_SIZE bytes each (room for J_EV_CAP)
export const J_EV_COUNT: usize = 104;
export const J_OUT_LEN: usize = 108; // output bytes of the last call
export const J_ERROR: usize = 112; // E_*, or 0
export const J_URI_HEAD: usize = 116; // message output offset where the deferred data: URI's header (to its comma) ends
export const J_MSG_LEVEL: usize = 120;
export const J_VALUE: usize = 124; // flags for the value that follows a key (json/state.ts V_*)
export const J_STR_START: usize = 128; // message output offset where the current string's text begins
export const J_OUT_TOTAL: usize = 132; // message output bytes before this call
export const J_LIT: usize = 136; // literal being matched: pointer
export const J_LIT_POS: usize = 140;
export const J_LIT_LEN: usize = 144;
export const J_DEFER_AT: usize = 148; // 1 + depth of the value being deferred (held by the host), or 0
export const J_ID_START: usize = 152;
export const J_STR_CHANGED: usize = 156;
export const J_ROOT_PAYLOAD: usize = 160; // ROOT_*
export const J_RAW_ESCAPES: usize = 164; // escapes in the raw window (none: raw and decoded offsets agree)
export const J_URI: usize = 168; // data: URI recogniser state of the current string (data-uri.ts)
export const J_ENV: usize = 172; // the envelope member being read: KEY_PARAMS, KEY_RESULT, KEY_ERROR or 0
export const J_L1: usize = 176; // key id of the member of params/result being read
export const J_SCHEMA_AT: usize = 180; // 1 + depth of a tool schema's root container, or 0
export const J_SKIP_AT: usize = 184; // 1 + depth of a schema's data container (const, enum...), or 0
export const J_NUM_LEN: usize = 188; // bytes of a maxLength number held in J_NUM (0: none held)
export const J_SMALL: usize = 192; // the decoded start of a key or of a `type` value
export const J_SMALL_SIZE: usize = 24; // at least LONGEST_KEY (fields.ts)
export const J_NUM: usize = 216; // a maxLength number, written when it ends
export const J_NUM_SIZE: usize = 24;
export const J_URI_FED: usize = 240; // decoded window bytes the data: URI recogniser has read
// Bytes at the start of the windows already read as the start of an undecided candidate: when
// decoding, a token candidate's prefix and hex digits; when encoding, a possible match's bytes
// the automaton walked (J_CAND_STATE, J_CAND_BEST). A long candidate stays in the windows until
// it is decided; this keeps each flush from scanning it again.
export const J_CAND_KNOWN: usize = 244;
// jsonLines (json/lines.ts) results besides its return value (input bytes of the lines taken)
// and J_OUT_LEN (their output): messages among them (blank lines are none), and why it
// stopped (LINES_*).
export const J_LINES_MESSAGES: usize = 248;
export const J_LINES_STOP: usize = 252;
export const J_EV_CAP: usize = 256; // events J_EVENTS has room for (the host's: see EV_PER_BYTE)
export const J_SIZE: usize = 260;

export const STACK_ENTRY_SIZE: usize = 2; // u16

// J_MODE
export const JSON_ENCODE: u32 = 0;
export const JSON_DECODE: u32 = 1;
// J_ROOT_PAYLOAD: what the top-level value is.
export const ROOT_MESSAGE: u32 = 0; // a JSON-RPC message or batch
export const ROOT_PAYLOAD: u32 = 1; // a bare value, all payload
export const ROOT_TEXT: u32 = 2; // a bare string already known not to be a data: URI

// J_PHASE, outside strings and in them.
export const P_VALUE: u32 = 0;
export const P_KEY: u32 = 1;
export const P_COLON: u32 = 2;
export const P_AFTER: u32 = 3;
export const P_SCALAR: u32 = 4;
export const P_DONE: u32 = 5;
export const P_STRING: u32 = 6;

// Events: [kind, a, b], u32 each; offsets are message output offsets.
export const EV_SIZE: u32 = 12;
// How many events one call writes: at most EV_PER_BYTE per input byte plus EV_PER_CALL (the
// events of bytes read before the call: a string's closing quote, or jsonFinish). The host
// gives J_EVENTS room for that many; past J_EV_CAP the core writes no event and fails the
// call with E_EVENTS. (The most a byte reaches: a `}` closing a payload object that holds a
// `data` and a `blob` not yet resolved, decoding: two EV_RESOLVE and EV_OBJ_CLOSE.)
export const EV_PER_BYTE: u32 = 3;
export const EV_PER_CALL: u32 = 5;
export const EV_DEFER_START: u32 = 1; // a: where the deferred value starts, b: DEFER_*
export const EV_DEFER_END: u32 = 2; // a: where it ends
export const EV_RESOLVE: u32 = 3; // a: RESOLVE_*, b: DEFER_* (the latest open deferral of that kind)
export const EV_OBJ_OPEN: u32 = 4; // decoding: a payload object opens
export const EV_KEY: u32 = 5; // decoding: a..b: a payload key's text in the output
export const EV_KEY_CHANGED: u32 = 6; // the same, for a key decoding changed
export const EV_OBJ_CLOSE: u32 = 7;
export const EV_ID: u32 = 8; // a..b: the id value's JSON text in the output
export const EV_MSG_END: u32 = 9; // a message object ended (decoding: tells batch elements apart)
export const EV_URI_HEADER: u32 = 10; // a: where the deferred string's data: URI header ends; EV_RESOLVE RESOLVE_URI follows
// EV_RESOLVE's verdicts.
export const RESOLVE_TRANSFORM: u32 = 0; // a JSON value to transform
export const RESOLVE_KEEP: u32 = 1; // opaque: kept as it is
export const RESOLVE_STRING: u32 = 2; // a string's text and closing quote, to transform (not a data: URI)
export const RESOLVE_URI: u32 = 3; // a whole base64 data: URI: its header (to EV_URI_HEADER's offset) transformed as text, the rest kept
// What a deferred value waits for.
export const DEFER_DATA: u32 = 0; // its object's `type`
export const DEFER_BLOB: u32 = 1; // its object's `uri`, or the object's end
export const DEFER_STRING: u32 = 2; // its own end (a string that begins like a data: URI)

// J_LINES_STOP: why jsonLines stopped (always at a line start).
export const LINES_END: u32 = 0; // no whole line left in its input
export const LINES_REFUSED: u32 = 1; // the next line needs the per-message path (error, size, events)

// J_ERROR, and jsonFinish's result.
export const E_SYNTAX: u32 = 1;
export const E_UTF8: u32 = 2;
export const E_CONTROL: u32 = 3;
export const E_ESCAPE: u32 = 4;
export const E_DEPTH: u32 = 5;
export const E_INCOMPLETE: u32 = 6;
export const E_NEED_MEMORY: u32 = 7; // not an error: the string windows must grow, then the rest is fed again
export const E_TYPE_CONFLICT: u32 = 8;
export const E_EVENTS: u32 = 9; // a bug, not the input's fault: more events than J_EV_CAP (EV_PER_BYTE)

// ---- The escape map (json/windows.ts): where a whole string's decoder met each escape. The
// core has one of its own; jsonLarge borrows the host's (`mapEntries` entries at `map`). ----
export const ESC_DEC_START: u32 = 0; // i32: decoded offset where the escape's text starts
export const ESC_DEC_END: u32 = 4; // i32: decoded offset where it ends
export const ESC_RAW_END: u32 = 8; // i32: raw offset where the escape ends
export const ESCAPE_ENTRY_SIZE: u32 = 12;

// ---- jsonMessages (json/framed.ts): the frame table, FRAME_SIZE bytes per message body ----
export const FRAME_SIZE: u32 = 16;
export const F_OFFSET: u32 = 0; // u32, written by the host: where the body starts in the input
export const F_LENGTH: u32 = 4; // u32, written by the host: its bytes
export const F_OUT_END: u32 = 8; // u32, written by the core: where its output ends, from `out`
export const F_MESSAGE: u32 = 12; // u32, written by the core: 1, or 0 for a body of only whitespace
