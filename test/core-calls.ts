// Which way messages went through the core: the per-message calls (write, finish) and the
// messages the batch entries (the NDJSON lane, the framed batch) took, counted while `f` runs.
import { FramedBodies } from '../src/stream/framed-bodies.ts';
import { LinesLane } from '../src/stream/lines-lane.ts';
import { Transducer } from '../src/stream/transducer.ts';

export function countCalls(f: () => void): { perMessage: number; taken: number } {
  const proto = Transducer.prototype;
  const { write, finish } = proto;
  const lane = LinesLane.prototype;
  const lines = lane.take;
  const bodies = FramedBodies.prototype;
  const framed = bodies.take;
  const n = { perMessage: 0, taken: 0 };
  proto.write = function (...a) {
    n.perMessage++;
    return write.apply(this, a);
  };
  proto.finish = function (...a) {
    n.perMessage++;
    return finish.apply(this, a);
  };
  lane.take = function (...a) {
    const at = lines.apply(this, a);
    n.taken += this.taken;
    return at;
  };
  bodies.take = function (...a) {
    const taken = framed.apply(this, a);
    n.taken += taken;
    return taken;
  };
  try {
    f();
  } finally {
    Object.assign(proto, { write, finish });
    lane.take = lines;
    bodies.take = framed;
  }
  return n;
}
