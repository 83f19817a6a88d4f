// Byte offsets of the fields in a codec descriptor. The descriptor is written by
// src/core/descriptor.ts; keep both files in step.
export const D_TRANS: usize = 0; //     u32 ptr: u16 DFA transitions [state * classes + class]
export const D_CLASSES: usize = 4; //   u32 ptr: 256 u8 byte -> class
export const D_ACCEPT: usize = 8; //    u32 ptr: u8 per state, 1 when a pattern ends there
export const D_NCLASSES: usize = 12; // u32
export const D_TEDDY: usize = 16; //    u32 ptr: 3 x (16 lo-nibble + 16 hi-nibble) bucket masks
export const D_PREFIX: usize = 20; //   u32 ptr: prefix, ASCII lower case (matching)
export const D_PREFIX_LEN: usize = 24;
export const D_PREFIX_OUT: usize = 28; // u32 ptr: prefix as configured (emitted)
export const D_SUFFIX: usize = 32;
export const D_SUFFIX_LEN: usize = 36;
export const D_HEX: usize = 40; //      u32 ptr: 16 hex digits in the configured case
export const D_WIDEN: usize = 44; //    u32: factor of maxLength in encoded tool schemas
export const D_MATCHES: usize = 48; //  result: matches or tokens found by the last call
export const D_GRAMS: usize = 56; //    u32 ptr: 32768-bit set of hashed folded pattern starts
export const D_GRAM_MASK: usize = 60; // u32: which of the 4 loaded bytes the start hash uses
export const DESCRIPTOR_SIZE: usize = 64;
