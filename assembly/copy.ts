// Short copies without a call.

/**
 * Copies up to this many bytes in a loop of 16-byte blocks with SIMD: memory.copy is a call
 * into the engine, which costs more than copying the text between two matches.
 */
const BLOCKS_UP_TO: usize = 1024;

/**
 * Copies n bytes forward (dst before or apart from src). Short copies, the common case
 * (keys, names, the text between matches), go 8 bytes at a time: memory.copy is a call.
 */
@inline export function copyBytes(dst: usize, src: usize, n: usize): void {
  if (n > 32) {
    if (ASC_FEATURE_SIMD && n <= BLOCKS_UP_TO) copyBlocks(dst, src, n);
    else memory.copy(dst, src, n);
    return;
  }
  copyWords(dst, src, n);
}

/** n bytes forward, 8 at a time then one at a time. */
@inline function copyWords(dst: usize, src: usize, n: usize): void {
  while (n >= 8) {
    store<u64>(dst, load<u64>(src));
    dst += 8;
    src += 8;
    n -= 8;
  }
  while (n > 0) {
    store<u8>(dst, load<u8>(src));
    dst++;
    src++;
    n--;
  }
}

/**
 * n bytes forward, 16 at a time (each block is loaded before it is stored, and blocks go in
 * order, so dst before src is safe as it is for the word loop).
 */
function copyBlocks(dst: usize, src: usize, n: usize): void {
  while (n >= 16) {
    v128.store(dst, v128.load(src));
    dst += 16;
    src += 16;
    n -= 16;
  }
  copyWords(dst, src, n);
}
