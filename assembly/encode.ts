// Term aliasing: leftmost-longest matching and hex token emission over UTF-8 bytes.
import {
  D_ACCEPT, D_CLASSES, D_HEX, D_MATCHES, D_NCLASSES, D_OUT_LEN, D_PREFIX_LEN, D_PREFIX_OUT,
  D_SUFFIX, D_SUFFIX_LEN, D_TEDDY, D_TRANS,
} from './layout';
import { nextCandidate } from './filter';

/**
 * Encodes `len` bytes at `inp` into `out`. Returns how many input bytes are final: when
 * `final` is 0, a possible match that runs into the end of the input is left for the next
 * call (the caller carries those bytes over). The output capacity must cover the codec's
 * worst-case expansion of `len` bytes; the caller sizes it.
 */
export function encode(desc: usize, inp: usize, len: i32, out: usize, final: i32): i32 {
  const trans = load<u32>(desc + D_TRANS) as usize;
  const classes = load<u32>(desc + D_CLASSES) as usize;
  const accept = load<u32>(desc + D_ACCEPT) as usize;
  const nc = load<u32>(desc + D_NCLASSES);
  const teddy = load<u32>(desc + D_TEDDY) as usize;
  let o = out;
  let lit: i32 = 0;
  let i: i32 = 0;
  let matches: i32 = 0;
  let consumed = len;
  while (true) {
    const c = nextCandidate(teddy, trans, classes, nc, inp, i, len);
    if (c >= len) break;
    // Anchored walk: the longest pattern that starts at c.
    let s: u32 = 1;
    let j = c;
    let best: i32 = -1;
    while (j < len) {
      const cls = <u32>load<u8>(classes + <usize>load<u8>(inp + <usize>j));
      s = <u32>load<u16>(trans + (<usize>(s * nc + cls) << 1));
      if (s == 0) break;
      j++;
      if (load<u8>(accept + <usize>s)) best = j;
    }
    if (s != 0 && !final) {
      consumed = c; // a longer match may continue in the next chunk
      break;
    }
    if (best < 0) {
      i = c + 1;
      continue;
    }
    const n = c - lit;
    memory.copy(o, inp + <usize>lit, <usize>n);
    o = emitToken(desc, o + <usize>n, inp + <usize>c, best - c);
    matches++;
    i = best;
    lit = best;
  }
  const tail = consumed - lit;
  memory.copy(o, inp + <usize>lit, <usize>tail);
  o += <usize>tail;
  store<u32>(desc + D_OUT_LEN, <u32>(o - out));
  store<u32>(desc + D_MATCHES, <u32>matches);
  return consumed;
}

/** Writes prefix + hex(bytes) + suffix at `o`; returns the new end. */
function emitToken(desc: usize, o: usize, src: usize, n: i32): usize {
  const pl = <usize>load<u32>(desc + D_PREFIX_LEN);
  memory.copy(o, load<u32>(desc + D_PREFIX_OUT) as usize, pl);
  o += pl;
  const hex = load<u32>(desc + D_HEX) as usize;
  for (let k: i32 = 0; k < n; k++) {
    const b = <usize>load<u8>(src + <usize>k);
    store<u8>(o, load<u8>(hex + (b >> 4)));
    store<u8>(o, load<u8>(hex + (b & 15)), 1);
    o += 2;
  }
  const sl = <usize>load<u32>(desc + D_SUFFIX_LEN);
  memory.copy(o, load<u32>(desc + D_SUFFIX) as usize, sl);
  return o + sl;
}
