// SIMD idioms in the forms V8 compiles well on x64, which has no byte shift and no unsigned byte
// compare: i8x16.shr_u and i8x16.lt_u each become five instructions there (a mask or all-ones
// built at the use), where these are two, their constant kept in a register.

/** Each byte's high nibble (i8x16.shr_u(v, 4)). */
@inline export function highNibbles(v: v128): v128 {
  return v128.and(i16x8.shr_u(v, 4), i8x16.splat(0x0f));
}

/** All ones in the lanes of v below n (1 to 255), as i8x16.lt_u(v, splat(n)): n - 1 taken from them, saturating, leaves 0. */
@inline export function lanesBelow(v: v128, n: u32): v128 {
  return i8x16.eq(i8x16.sub_sat_u(v, i8x16.splat(<i8>(n - 1))), i8x16.splat(0));
}
