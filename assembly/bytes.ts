// The ASCII bytes the core looks for, by name (JSON syntax, escapes, data: URIs).
export const BS: u32 = 0x08; // backspace
export const TAB: u32 = 0x09;
export const LF: u32 = 0x0a;
export const FF: u32 = 0x0c; // form feed
export const CR: u32 = 0x0d;
export const SPACE: u32 = 0x20;
export const QUOTE: u32 = 0x22; // "
export const PLUS: u32 = 0x2b;
export const COMMA: u32 = 0x2c;
export const MINUS: u32 = 0x2d;
export const DOT: u32 = 0x2e;
export const SLASH: u32 = 0x2f;
export const DIGIT_0: u32 = 0x30;
export const DIGIT_9: u32 = 0x39;
export const COLON: u32 = 0x3a;
export const SEMICOLON: u32 = 0x3b;
export const EQUALS: u32 = 0x3d;
export const UPPER_A: u32 = 0x41;
export const UPPER_Z: u32 = 0x5a;
export const BRACKET_OPEN: u32 = 0x5b; // [
export const BACKSLASH: u32 = 0x5c;
export const BRACKET_CLOSE: u32 = 0x5d; // ]
export const UNDERSCORE: u32 = 0x5f;
export const LOWER_A: u32 = 0x61;
export const LOWER_B: u32 = 0x62;
export const LOWER_D: u32 = 0x64;
export const LOWER_E: u32 = 0x65;
export const LOWER_F: u32 = 0x66;
export const LOWER_N: u32 = 0x6e;
export const LOWER_R: u32 = 0x72;
export const LOWER_T: u32 = 0x74;
export const LOWER_U: u32 = 0x75;
export const LOWER_Z: u32 = 0x7a;
export const BRACE_OPEN: u32 = 0x7b; // {
export const BRACE_CLOSE: u32 = 0x7d; // }
export const DEL: u32 = 0x7f;
/** The bit that tells ASCII letters' cases apart: `b | CASE_BIT` lowers a letter. */
export const CASE_BIT: u32 = 0x20;
/** JSON strings hold no byte below this unescaped. */
export const FIRST_PRINTABLE: u32 = 0x20;
/** Stands for a lone surrogate escape in the decoded window (no term or token holds it). */
export const LONE_SURROGATE: u32 = 0xff;

/** The byte a two-byte escape stands for (\" \\ \/ \b \f \n \r \t), or -1. */
@inline export function shortEscape(e: u32): i32 {
  if (e == QUOTE || e == BACKSLASH || e == SLASH) return <i32>e;
  if (e == LOWER_N) return <i32>LF;
  if (e == LOWER_T) return <i32>TAB;
  if (e == LOWER_R) return <i32>CR;
  if (e == LOWER_B) return <i32>BS;
  if (e == LOWER_F) return <i32>FF;
  return -1;
}
