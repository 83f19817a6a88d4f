// Puts one message's output together from the transducer's output and events: passes bytes on
// as they come, holds them while a `data` value waits for its object's `type` (then either
// keeps that value as it is or transforms it on its own), and, when decoding, holds the whole
// message so that one whose keys collide can be dropped whole, never half sent.
//
// The core's events are EV_* (explained in assembly/abi.ts). EV_RESOLVE's a is a verdict
// (RESOLVE_*); its b, and EV_DEFER_START's, is the kind of deferral (DEFER_*: an object's
// `data`, its `blob`, a string that began like a data: URI). A whole base64 data: URI resolves
// RESOLVE_URI, after EV_URI_HEADER: its header is transformed as text, its base64 kept.
//
// A value is held once: its bytes as they came, until it is resolved. When nothing before it
// waits (no deferral open before it, and the message is not held whole), its transformed
// output streams out as it is made, after what was held before it; otherwise it is held too.

import {
  EV_DEFER_END,
  EV_DEFER_START,
  EV_ID,
  EV_KEY,
  EV_KEY_CHANGED,
  EV_MSG_END,
  EV_OBJ_CLOSE,
  EV_OBJ_OPEN,
  EV_RESOLVE,
  EV_URI_HEADER,
  RESOLVE_STRING,
  RESOLVE_TRANSFORM,
  RESOLVE_URI,
} from '../core/abi.js';
import { PayloadKeyCollisionError } from '../errors.js';
import { HeldBytes } from './held-bytes.js';
import { collisionError, findCollision } from './key-collision.js';
import { NumList } from './num-list.js';
import type { StepSink } from './transducer.js';

const QUOTE = new Uint8Array([0x22]);

/** A transformed value up to this size is copied next to its parent's; a larger one hands its chunks over. */
const SMALL_RESULT = 16 * 1024;

/** Where a transformed value goes: appended to held bytes, or streamed to a function (views valid during the call). */
export type ValueOutput = HeldBytes | ((bytes: Uint8Array) => void);

export interface AssemblerOptions {
  /** Hold the whole message (decoding: a collision must drop it whole). */
  readonly holdAll: boolean;
  /**
   * Transforms a deferred value that turned out not to be opaque, given as pieces that it lets
   * go of (sets to undefined) once fed: a JSON value, or (`text`) a JSON string known not to be
   * a base64 data: URI. Given a function, the result streams to it (and null is returned);
   * else a small result is appended to `into` (and null returned), a large one returned as pieces.
   */
  readonly transformValue: (pieces: (Uint8Array | undefined)[], into: ValueOutput, text: boolean) => Uint8Array[] | null;
  /** Gets the output, as views valid only during the call: copy what you keep. */
  readonly emit: (bytes: Uint8Array) => void;
}

const KEPT = -1; // a deferred value that goes out as it is
const STREAMED = -2 - 2 ** 52; // a transformed value that went out as it was made (never a large[] index)

// Offsets in `held` are message output offsets less `base`, as the core wrote them. A deferred
// value that gets transformed is not spliced in (that moved everything after it, and every key
// offset), but recorded as a replacement that goes out in its place. Deferrals live in flat
// number arrays: a message may hold many thousands.
export class MessageAssembler {
  // (256 KiB kept for the next message: decoding holds each message whole. A nested level keeps
  // them only when a large held value came out small, else hands them out with its result.)
  private readonly held = new HeldBytes(4);
  /** Transformed deferred values, back to back. */
  private readonly replaced = new HeldBytes();
  /** Large transformed values, as pieces. */
  private large: Uint8Array[][] = [];
  private holding = false;
  private base = 0; // message offset of held[0]
  private outTotal = 0; // message output offset of the next output byte
  // What has gone out of `held` already (before a streamed value): up to this offset, and the
  // deferrals before this index.
  private sentAt = 0;
  private sentDeferrals = 0;
  /** Bytes the replacements add to what is held (negative: they are shorter). */
  private delta = 0;
  // Deferrals since held[0], in order, 4 numbers each: [start, end) in `held`, and the
  // replacement: [replStart, replEnd) in `replaced`, KEPT, STREAMED, or -2 - i for large[i].
  private readonly deferrals = new NumList();
  /** Indexes of the deferrals not yet resolved (innermost last), and the kind of each. */
  private readonly open = new NumList();
  private readonly openKinds = new NumList();
  // Payload objects open (decoding), innermost last: where its keys begin in `keys`, and
  // whether decoding changed one. Keys are [start, end) in `held`, kept as offsets: most
  // objects never need their text.
  private readonly objectKeys = new NumList();
  private readonly objectChanged = new NumList();
  private readonly keys = new NumList();
  private collision: [number, number] | null = null;
  /** Where the header of the data: URI resolved next ends (EV_URI_HEADER), in `held`. */
  private uriHeader = 0;
  // Ids of the message objects (one, or one per batch element) as [start, end) in `held`
  // (-1 when absent), read only for a collision error; and which element collided.
  private idStart = -1;
  private idEnd = -1;
  private readonly ids = new NumList(); // (numbers, not arrays: no allocation per message)
  private collisionInElement = false;
  private collisionElement = -1;

  constructor(private readonly o: AssemblerOptions) {}

  begin(): void {
    this.holding = this.o.holdAll;
    this.base = 0;
    this.outTotal = 0;
    // (Setting an array's length is slow in V8 even when it changes nothing: only when needed.)
    if (this.deferrals.length) this.clearDeferrals();
    this.open.clear();
    this.openKinds.clear();
    this.objectKeys.clear();
    this.objectChanged.clear();
    this.keys.clear();
    this.collision = null;
    this.idStart = this.idEnd = -1;
    this.ids.clear();
    this.collisionInElement = false;
    this.collisionElement = -1;
    this.held.reset();
  }

  private clearDeferrals(): void {
    this.deferrals.clear();
    this.sentAt = this.sentDeferrals = 0;
    this.replaced.reset();
    if (this.large.length) this.large = [];
    this.delta = 0;
  }

  /** An event's output offset as an index in `held`. */
  private index(offset: number): number {
    return this.unwrap(offset) - this.base;
  }

  /**
   * An event's output offset as the message's: the core counts them in a u32, which wraps in a
   * message whose output passes 4 GiB (encoding grows a default term up to 5x, a user's short
   * one more: 820 MiB of terms, or 512 MiB of two-letter ones, pass it). Every offset an event
   * gives is at most `outTotal` (the end of the call's output) and less than 4 GiB before it.
   */
  private unwrap(offset: number): number {
    return this.outTotal - ((this.outTotal - offset) >>> 0);
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
      const cursor = this.unwrap(events[defer + 1]!) - start;
      // Keep the rest first: what `emit` runs might grow WASM memory and detach `output`.
      const before = output.subarray(0, cursor);
      this.held.push(output.subarray(cursor));
      if (cursor > 0) this.o.emit(before);
      this.holding = true;
      this.base = this.unwrap(events[defer + 1]!);
    } else this.held.push(output); // (copied before any event can grow WASM memory)
    for (let i = 0; i < count * 3; i += 3) this.event(events[i]!, events[i + 1]!, events[i + 2]!);
    if (this.open.length === 0 && !this.o.holdAll) {
      this.holding = false;
      this.release(this.o.emit);
    }
  };

  private event(kind: number, a: number, b: number): void {
    switch (kind) {
      case EV_DEFER_START: {
        const f = this.deferrals;
        this.open.push(f.length);
        this.openKinds.push(b);
        f.push(this.index(a));
        f.push(-1);
        f.push(KEPT);
        f.push(KEPT);
        break;
      }
      case EV_DEFER_END:
        this.deferrals.a[this.open.a[this.open.length - 1]! + 1] = this.index(a);
        break;
      case EV_RESOLVE: {
        // The latest open one of its kind: an object's own (one `data`, one `blob`) are the
        // latest open ones when it resolves them, in either order.
        let j = this.open.length - 1;
        while (this.openKinds.a[j] !== b) j--;
        const d = this.open.a[j]!;
        this.open.a.copyWithin(j, j + 1, this.open.length);
        this.openKinds.a.copyWithin(j, j + 1, this.openKinds.length);
        this.open.length--;
        this.openKinds.length--;
        if (a === RESOLVE_TRANSFORM || a === RESOLVE_STRING) this.transform(d, a === RESOLVE_STRING);
        else if (a === RESOLVE_URI) {
          // Only the header is transformed (as a string of its own); the rest stays held as it is.
          this.deferrals.a[d + 1] = this.uriHeader;
          this.transform(d, true, true);
        }
        break;
      }
      case EV_URI_HEADER:
        this.uriHeader = this.index(a);
        break;
      case EV_OBJ_OPEN:
        this.objectKeys.push(this.keys.length);
        this.objectChanged.push(0);
        break;
      case EV_KEY:
      case EV_KEY_CHANGED:
        this.keys.push(this.index(a));
        this.keys.push(this.index(b));
        if (kind === EV_KEY_CHANGED) this.objectChanged.a[this.objectChanged.length - 1] = 1;
        break;
      case EV_OBJ_CLOSE: {
        const from = this.objectKeys.a[--this.objectKeys.length]!;
        if (this.objectChanged.a[--this.objectChanged.length]) {
          const found = findCollision(this.held, this.keys.a.subarray(from, this.keys.length));
          if (found) this.noteCollision(found);
        }
        this.keys.length = from;
        break;
      }
      case EV_ID:
        if (this.o.holdAll) {
          this.idStart = this.index(a); // (only collision errors report it)
          this.idEnd = this.index(b);
        }
        break;
      case EV_MSG_END:
        // One message object ended (of a batch, or the message itself): its id is now known.
        if (this.collisionInElement && this.collisionElement < 0) this.collisionElement = this.ids.length / 2;
        this.ids.push(this.idStart);
        this.ids.push(this.idEnd);
        this.collisionInElement = false;
        this.idStart = this.idEnd = -1;
        break;
    }
  }

  /**
   * Deferral d is not media: transform its value, once. Its held bytes are read no more (keys
   * and ids never lie inside it), so they are let go of as the transform goes. `head`: the
   * deferral is a data: URI's header, a string's text without its closing quote.
   */
  private transform(d: number, text: boolean, head = false): void {
    const f = this.deferrals.a;
    const start = f[d]!;
    const end = f[d + 1]!;
    const pieces: (Uint8Array | undefined)[] = this.held.range(start, end);
    this.held.drop(start, end);
    // A string's text and closing quote: transformed as a whole JSON string, less its quote
    // (a header: less both quotes).
    if (text) pieces.unshift(QUOTE);
    if (head) pieces.push(QUOTE);
    // (A header is short, and would have to lose its last byte: it is held.)
    if (!head && !this.o.holdAll && (this.open.length === 0 || this.open.a[0]! > d)) {
      this.stream(d, pieces, text);
      return;
    }
    const skip = text ? 1 : 0;
    const at = this.replaced.length + skip;
    let large: Uint8Array[] | null;
    try {
      large = this.o.transformValue(pieces, this.replaced, text);
      if (large && text) {
        let k = 0;
        while (large[k]!.length === 0) k++;
        large[k] = large[k]!.subarray(1);
      }
      if (large && head) {
        let k = large.length - 1;
        while (large[k]!.length === 0) k--;
        large[k] = large[k]!.subarray(0, -1);
      }
    } catch (e) {
      if (!(e instanceof PayloadKeyCollisionError)) throw e;
      this.noteCollision(e.keyIndexes as [number, number]); // the message goes as a whole
      return;
    }
    let size: number;
    if (large) {
      f[d + 2] = -2 - this.large.length;
      this.large.push(large);
      size = large.reduce((n, p) => n + p.length, 0);
    } else {
      f[d + 2] = at;
      f[d + 3] = this.replaced.length - (head ? 1 : 0);
      size = f[d + 3]! - at;
    }
    this.delta += size - (end - start);
  }

  /**
   * Deferral d, which nothing held before it waits for, streams out: what is held before it
   * goes, then its transformed output as it is made (less the quote a string was given).
   */
  private stream(d: number, pieces: (Uint8Array | undefined)[], text: boolean): void {
    const f = this.deferrals.a;
    const emit = this.o.emit;
    this.releaseBefore(d, f[d]!, emit);
    this.held.drop(0, f[d]!);
    this.sentAt = f[d + 1]!;
    this.sentDeferrals = d + 4;
    f[d + 2] = STREAMED;
    let skip = text;
    this.o.transformValue(
      pieces,
      skip
        ? (b) => {
            if (skip && b.length) {
              skip = false;
              b = b.subarray(1);
            }
            if (b.length) emit(b);
          }
        : emit,
      text,
    );
  }

  /** Gives what is held and not yet sent, up to deferral `to` and offset `end`, to `out`, each transformed value in its place. */
  private releaseBefore(to: number, end: number, out: (bytes: Uint8Array) => void): void {
    let at = this.sentAt;
    const f = this.deferrals.a;
    for (let d = this.sentDeferrals; d < to; d += 4) {
      const r = f[d + 2]!;
      if (r === KEPT) continue;
      this.held.forEach(at, f[d]!, out);
      if (r >= 0) this.replaced.forEach(r, f[d + 3]!, out);
      else for (const p of this.large[-2 - r]!) out(p);
      at = f[d + 1]!;
    }
    this.held.forEach(at, end, out);
  }

  /** Gives what is held to `out`, piece by piece, each transformed value in its place; then empties it. */
  private release(out: (bytes: Uint8Array) => void): void {
    this.releaseBefore(this.deferrals.length, this.held.length, out);
    this.held.reset();
    this.sentAt = this.sentDeferrals = 0;
    if (this.deferrals.length) this.clearDeferrals();
  }

  private noteCollision(keys: [number, number]): void {
    this.collision ??= keys;
    this.collisionInElement = true;
  }

  /** Throws the collision found, if any (the message goes as a whole). */
  private check(messageNumber: number): void {
    if (!this.collision) return;
    const error = collisionError(this.held, this.ids, this.collision, this.collisionElement, messageNumber);
    this.held.reset();
    this.clearDeferrals();
    throw error;
  }

  /** The message is complete: throws on a collision, else emits what is held. */
  end(messageNumber: number): void {
    this.check(messageNumber);
    this.release(this.o.emit);
  }

  /**
   * Like `end`, for a nested value's result: a small one is appended to `into` (returns null),
   * a large one returned as pieces, handing its chunks over.
   */
  endInto(messageNumber: number, into: HeldBytes): Uint8Array[] | null {
    this.check(messageNumber);
    if (this.held.length + this.delta <= SMALL_RESULT) {
      this.release((p) => into.push(p));
      return null;
    }
    const pieces: Uint8Array[] = [];
    this.release((p) => void pieces.push(p));
    this.held.reset(true);
    this.replaced.reset(true);
    return pieces;
  }
}
