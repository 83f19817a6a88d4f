// Puts one message's output together from the transducer's output and events: passes bytes on
// as they come, holds them while a `data` value waits for its object's `type` (then either
// keeps that value as it is or transforms it on its own), and, when decoding, holds the whole
// message so that one whose keys collide can be dropped whole, never half sent.
import { PayloadKeyCollisionError } from '../errors.js';
import type { StepSink } from './transducer.js';

// Event codes written by assembly/json.ts (EV_*): keep the two lists in step.
const EV_DEFER_START = 1;
const EV_DEFER_END = 2;
const EV_RESOLVE = 3;
const EV_OBJ_OPEN = 4;
const EV_KEY = 5;
const EV_KEY_CHANGED = 6;
const EV_OBJ_CLOSE = 7;
const EV_ID = 8;
const EV_MSG_END = 9;
// EV_RESOLVE's verdicts (RESOLVE_*).
const RESOLVE_TRANSFORM = 0;
const RESOLVE_STRING = 2;
const QUOTE = new Uint8Array([0x22]);

const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });

/** A growable byte buffer with random access (held output is rare or small). */
class Bytes {
  data = new Uint8Array(1024);
  length = 0;

  push(b: Uint8Array): void {
    if (this.length + b.length > this.data.length) {
      const grown = new Uint8Array(Math.max(this.data.length * 2, this.length + b.length));
      grown.set(this.data.subarray(0, this.length));
      this.data = grown;
    }
    this.data.set(b, this.length);
    this.length += b.length;
  }

  splice(start: number, end: number, replacement: Uint8Array): void {
    const tail = this.data.slice(end, this.length);
    this.length = start;
    this.push(replacement);
    this.push(tail);
  }

  /** What is held, as a view valid until the next push; then empty. */
  take(): Uint8Array {
    const out = this.data.subarray(0, this.length);
    this.length = 0;
    return out;
  }
}

interface ObjectKeys {
  /** [start, end) of each key's text in `held`, kept as offsets: most objects never need them. */
  keys: number[];
  changed: boolean;
}

export interface AssemblerOptions {
  /** Hold the whole message (decoding: a collision must drop it whole). */
  readonly holdAll: boolean;
  /**
   * Transforms a deferred value that turned out not to be opaque: a JSON value, or (`text`) a
   * JSON string known not to be a base64 data: URI.
   */
  readonly transformValue: (json: Uint8Array, text: boolean) => Uint8Array;
  /** Gets the output, as views valid only during the call: copy what you keep. */
  readonly emit: (bytes: Uint8Array) => void;
}

export class MessageAssembler {
  private readonly held = new Bytes();
  private holding = false;
  private base = 0; // message offset of held[0], before splices
  private shift = 0; // bytes added to held by splices so far
  private outTotal = 0; // message output offset of the next output byte
  /** Deferred values still waiting, of each kind (the core's DEFER_*: data, blob, string). */
  private readonly deferrals: { start: number; end: number; kind: number }[] = [];
  private readonly objects: ObjectKeys[] = [];
  private collision: [number, number] | null = null;
  // Ids of the message objects (one, or one per batch element) as [start, end) in `held`
  // (-1 when absent), read only for a collision error; and which element collided.
  private elementId: [number, number] = [-1, -1];
  private ids: number[] = [];
  private collisionInElement = false;
  private collisionElement = -1;

  constructor(private readonly o: AssemblerOptions) {}

  begin(): void {
    this.holding = this.o.holdAll;
    this.base = 0;
    this.shift = 0;
    this.outTotal = 0;
    // (Setting an array's length is slow in V8 even when it changes nothing: only when needed.)
    if (this.deferrals.length) this.deferrals.length = 0;
    if (this.objects.length) this.objects.length = 0;
    this.collision = null;
    this.elementId = [-1, -1];
    if (this.ids.length) this.ids = []; // (cheaper than a length reset, with one id per message)
    this.collisionInElement = false;
    this.collisionElement = -1;
    this.held.length = 0;
  }

  private index(offset: number): number {
    return offset - this.base + this.shift;
  }

  readonly sink: StepSink = (output, events, count) => {
    const start = this.outTotal;
    this.outTotal += output.length;
    if (!this.holding) {
      let defer = -1;
      for (let i = 0; i < count * 3 && defer < 0; i += 3) if (events[i] === EV_DEFER_START) defer = i;
      if (defer < 0) {
        if (output.length) this.o.emit(output);
        return;
      }
      const cursor = events[defer + 1]! - start;
      // Keep the rest first: what `emit` runs might grow WASM memory and detach `output`.
      const before = output.subarray(0, cursor);
      this.held.push(output.subarray(cursor));
      if (cursor > 0) this.o.emit(before);
      this.holding = true;
      this.base = events[defer + 1]!;
      this.shift = 0;
    } else this.held.push(output); // (copied before any event can grow WASM memory)
    for (let i = 0; i < count * 3; i += 3) this.event(events[i]!, events[i + 1]!, events[i + 2]!);
    if (this.deferrals.length === 0 && !this.o.holdAll) {
      this.holding = false;
      if (this.held.length) this.o.emit(this.held.take());
    }
  };

  private event(kind: number, a: number, b: number): void {
    switch (kind) {
      case EV_DEFER_START:
        this.deferrals.push({ start: this.index(a), end: -1, kind: b });
        break;
      case EV_DEFER_END:
        this.deferrals[this.deferrals.length - 1]!.end = this.index(a);
        break;
      case EV_RESOLVE: {
        // The latest one of its kind: an object's deferrals (one `data`, one `blob`) are the
        // latest open ones when it resolves them.
        let at = this.deferrals.length - 1;
        while (this.deferrals[at]!.kind !== b) at--;
        const d = this.deferrals.splice(at, 1)[0]!;
        if (a === RESOLVE_TRANSFORM || a === RESOLVE_STRING) {
          const before = this.held.data.slice(d.start, d.end);
          let after: Uint8Array;
          try {
            // A string's text and closing quote: transformed as a whole JSON string.
            after = a === RESOLVE_STRING ? this.o.transformValue(concatBytes(QUOTE, before), true).subarray(1) : this.o.transformValue(before, false);
          } catch (e) {
            if (!(e instanceof PayloadKeyCollisionError)) throw e;
            this.noteCollision(e.keyIndexes as [number, number]); // the message goes as a whole
            break;
          }
          this.held.splice(d.start, d.end, after);
          const delta = after.length - before.length;
          this.shift += delta;
          // A later deferral of the same object (its `blob` after its `data`) moved with it.
          for (const o of this.deferrals) {
            if (o.start >= d.end) o.start += delta;
            if (o.end >= d.end) o.end += delta;
          }
          // Keys already seen after the value (in objects still open) moved with it. (Ids never
          // do: a message's id lies wholly before or after its payload.)
          for (const o of this.objects) for (let k = 0; k < o.keys.length; k++) if (o.keys[k]! >= d.end) o.keys[k]! += delta;
        }
        break;
      }
      case EV_OBJ_OPEN:
        this.objects.push({ keys: [], changed: false });
        break;
      case EV_KEY:
      case EV_KEY_CHANGED: {
        const top = this.objects[this.objects.length - 1]!;
        top.keys.push(this.index(a), this.index(b));
        if (kind === EV_KEY_CHANGED) top.changed = true;
        break;
      }
      case EV_OBJ_CLOSE: {
        const top = this.objects.pop()!;
        if (top.changed) {
          const found = findCollision(this.held.data, top.keys);
          if (found) this.noteCollision(found);
        }
        break;
      }
      case EV_ID:
        if (this.o.holdAll) this.elementId = [this.index(a), this.index(b)]; // (only collision errors report it)
        break;
      case EV_MSG_END:
        // One message object ended (of a batch, or the message itself): its id is now known.
        if (this.collisionInElement && this.collisionElement < 0) this.collisionElement = this.ids.length / 2;
        this.ids.push(...this.elementId);
        this.collisionInElement = false;
        this.elementId = [-1, -1];
        break;
    }
  }

  private noteCollision(keys: [number, number]): void {
    this.collision ??= keys;
    this.collisionInElement = true;
  }

  /** The id of message object k, parsed from its JSON text (undefined if none or unreadable). */
  private idAt(k: number): unknown {
    const [start, end] = [this.ids[2 * k]!, this.ids[2 * k + 1]!];
    if (start < 0) return undefined;
    try {
      return JSON.parse(utf8.decode(this.held.data.subarray(start, end)));
    } catch {
      return undefined;
    }
  }

  /** The message is complete: throws on a collision, else emits what is held. */
  end(messageNumber: number): void {
    if (this.collision) {
      const ids = Array.from({ length: this.ids.length / 2 }, (_, k) => this.idAt(k));
      const batchIds = ids.length > 1 ? ids.filter((id) => id !== undefined) : undefined;
      const id = this.collisionElement >= 0 ? ids[this.collisionElement] : undefined;
      const error = new PayloadKeyCollisionError([], this.collision, { messageNumber, id, batchIds });
      this.held.length = 0;
      throw error;
    }
    if (this.held.length) this.o.emit(this.held.take());
  }
}

/** Positions of the first two keys (JSON texts at [start, end) pairs) that decode to the same string, or null. */
function findCollision(data: Uint8Array, keys: readonly number[]): [number, number] | null {
  const seen = new Map<string, number>();
  for (let i = 0; i < keys.length / 2; i++) {
    const text = JSON.parse(`"${utf8.decode(data.subarray(keys[2 * i], keys[2 * i + 1]))}"`) as string;
    const first = seen.get(text);
    if (first !== undefined) return [first, i];
    seen.set(text, i);
  }
  return null;
}

function concatBytes(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
