// Short copies without a call.

/**
 * Copies n bytes forward (dst before or apart from src). Short copies, the common case
 * (keys, names, the text between matches), go 8 bytes at a time: memory.copy is a call.
 */
@inline export function copyBytes(dst: usize, src: usize, n: usize): void {
  if (n > 32) {
    memory.copy(dst, src, n);
    return;
  }
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
