// Iterative walks over JSON values: an explicit stack instead of recursion, so 100,000 levels
// of nesting cost memory, not a stack overflow.
import { PayloadKeyCollisionError, type JsonPath } from './errors.js';

/**
 * JSON values have no cycles, but a JS object may. Below this depth a cycle is impossible to
 * miss cheaply (it would just be deep); past it, the walk keeps the set of open containers
 * and refuses one that contains itself.
 */
const CYCLE_CHECK_DEPTH = 1024;

type Container = unknown[] | Record<string, unknown>;

const isContainer = (v: unknown): v is Container => typeof v === 'object' && v !== null;

/** Tracks the open containers of deep walks; see CYCLE_CHECK_DEPTH. */
class CycleGuard {
  private open: Set<Container> | null = null;

  enter(stack: readonly { src: Container }[], v: Container): void {
    if (stack.length < CYCLE_CHECK_DEPTH) return;
    if (!this.open) this.open = new Set(stack.map((f) => f.src));
    if (this.open.has(v)) throw new TypeError(`The value is cyclic: a container holds itself (at depth ${stack.length})`);
    this.open.add(v);
  }

  leave(depth: number, v: Container): void {
    if (this.open && depth >= CYCLE_CHECK_DEPTH) this.open.delete(v);
  }
}

/** An object whose `type` is "image" or "audio": its `data` is kept byte for byte. */
function isMedia(o: Record<string, unknown>): boolean {
  const t = Object.hasOwn(o, 'type') ? o.type : undefined;
  return t === 'image' || t === 'audio';
}

interface ReadFrame {
  readonly src: Container;
  readonly keys: string[] | null; // null for arrays
  readonly n: number;
  readonly via: string | number | undefined; // key or index in the parent
  i: number;
}

function readFrame(src: Container, via: string | number | undefined): ReadFrame {
  const keys = Array.isArray(src) ? null : Object.keys(src);
  return { src, keys, n: keys ? keys.length : (src as unknown[]).length, via, i: 0 };
}

export type StringVisitor = (s: string, path: () => JsonPath, location: 'value' | 'key') => void;

/** Calls `visit` for every string and key in document order (a key before its value). */
export function walkStrings(root: unknown, visit: StringVisitor): void {
  if (typeof root === 'string') return visit(root, () => [], 'value');
  if (!isContainer(root)) return;
  const stack: ReadFrame[] = [readFrame(root, undefined)];
  const guard = new CycleGuard();
  let key: string | number = 0;
  const path = (): JsonPath => [...stack.slice(1).map((f) => f.via!), key];
  while (stack.length > 0) {
    const f = stack[stack.length - 1]!;
    if (f.i >= f.n) {
      stack.pop();
      guard.leave(stack.length, f.src);
      continue;
    }
    const i = f.i++;
    let v: unknown;
    if (f.keys) {
      key = f.keys[i]!;
      visit(key, path, 'key');
      v = (f.src as Record<string, unknown>)[key];
    } else {
      key = i;
      v = (f.src as unknown[])[i];
    }
    if (typeof v === 'string') visit(v, path, 'value');
    else if (isContainer(v)) {
      guard.enter(stack, v);
      stack.push(readFrame(v, key));
    }
  }
}

interface MapFrame extends ReadFrame {
  readonly newKeys: string[] | null; // transformed keys, when any changed
  readonly media: boolean;
  out: unknown[] | null; // child results, once one of them changed
}

export interface MapOptions {
  /** Decoding: refuse an object whose keys become equal. */
  readonly checkCollisions: boolean;
  /** Where `root` sits, for error paths. */
  readonly basePath?: JsonPath;
}

function setOwn(o: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(o, key, { value, writable: true, enumerable: true, configurable: true });
  else o[key] = value;
}

/**
 * Transforms every key and string value with `map`, rebuilding only the containers on the path
 * to a change; unchanged subtrees (and an unchanged root) are returned as they are. `data` of
 * image and audio objects is kept. Inputs are never mutated.
 */
export function mapValue(root: unknown, map: (s: string) => string, options: MapOptions): unknown {
  if (typeof root === 'string') return map(root);
  if (!isContainer(root)) return root;
  const stack: MapFrame[] = [];
  const guard = new CycleGuard();
  const pathOf = () => [...(options.basePath ?? []), ...stack.slice(1).map((f) => f.via!)];
  const open = (src: Container, via: string | number | undefined) => {
    guard.enter(stack, src);
    const base = readFrame(src, via);
    let newKeys: string[] | null = null;
    if (base.keys) {
      const keys = base.keys;
      for (let k = 0; k < keys.length; k++) {
        const nk = map(keys[k]!);
        if (nk !== keys[k] && !newKeys) newKeys = keys.slice(0, k);
        newKeys?.push(nk);
      }
    }
    stack.push({ ...base, newKeys, media: base.keys !== null && isMedia(src as Record<string, unknown>), out: null });
    if (newKeys && options.checkCollisions) checkCollisions(newKeys, pathOf);
  };
  const childAt = (f: MapFrame, i: number): unknown => (f.keys ? (f.src as Record<string, unknown>)[f.keys[i]!] : (f.src as unknown[])[i]);
  const deliver = (f: MapFrame, i: number, before: unknown, after: unknown) => {
    if (f.out) f.out.push(after);
    else if (after !== before) {
      f.out = [];
      for (let k = 0; k < i; k++) f.out.push(childAt(f, k));
      f.out.push(after);
    }
  };
  const close = (f: MapFrame): unknown => {
    if (!f.out && !f.newKeys) return f.src;
    if (!f.keys) return f.out;
    const keys = f.newKeys ?? f.keys;
    const o: Record<string, unknown> = {};
    for (let k = 0; k < keys.length; k++) setOwn(o, keys[k]!, f.out ? f.out[k] : childAt(f, k));
    return o;
  };
  open(root, undefined);
  for (;;) {
    const f = stack[stack.length - 1]!;
    if (f.i < f.n) {
      const i = f.i++;
      const v = childAt(f, i);
      if (f.media && f.keys![i] === 'data') deliver(f, i, v, v);
      else if (typeof v === 'string') deliver(f, i, v, map(v));
      else if (isContainer(v)) open(v, f.keys ? f.keys[i]! : i);
      else deliver(f, i, v, v);
      continue;
    }
    const result = close(f);
    stack.pop();
    guard.leave(stack.length, f.src);
    const parent = stack[stack.length - 1];
    if (!parent) return result;
    deliver(parent, parent.i - 1, f.src, result);
  }
}

function checkCollisions(keys: readonly string[], pathOf: () => JsonPath): void {
  const seen = new Map<string, number>();
  for (let k = 0; k < keys.length; k++) {
    const first = seen.get(keys[k]!);
    if (first !== undefined) throw new PayloadKeyCollisionError(pathOf(), [first, k]);
    seen.set(keys[k]!, k);
  }
}
