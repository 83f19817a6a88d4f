// Which way messages went through the core: the per-message calls (write, finish) and the
// messages the batch entries (the NDJSON lane, the framed batch) took, counted while `f` runs.
import { Transducer } from '../src/stream/transducer.ts';

export function countCalls(f: () => void): { perMessage: number; taken: number } {
  const proto = Transducer.prototype;
  const { write, finish, lines, framed } = proto;
  const n = { perMessage: 0, taken: 0 };
  proto.write = function (...a) {
    n.perMessage++;
    return write.apply(this, a);
  };
  proto.finish = function (...a) {
    n.perMessage++;
    return finish.apply(this, a);
  };
  proto.lines = function (...a) {
    const at = lines.apply(this, a);
    n.taken += this.linesTaken;
    return at;
  };
  proto.framed = function (...a) {
    const taken = framed.apply(this, a);
    n.taken += taken;
    return taken;
  };
  try {
    f();
  } finally {
    Object.assign(proto, { write, finish, lines, framed });
  }
  return n;
}
