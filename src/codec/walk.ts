// Iterative walks over JSON values: an explicit stack instead of recursion, so 100,000 levels
// of nesting cost memory, not a stack overflow.
import { type JsonPath, PayloadKeyCollisionError } from '../errors.js';
import { KeyMapper, type KeyShape } from './key-shapes.js';
import {
  type FieldRule,
  isBase64DataUri,
  isOpaqueMember,
  MEDIA_TYPES,
  META_KEY,
  SCHEMA_DATA,
  SCHEMA_NAME_MAPS,
  widenMaxLength,
} from './protocol-fields.js';

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

  leave(v: Container): void {
    // Once it exists, the set holds exactly the open containers at its depth and below it,
    // so a shared (acyclic) value met again on another path is not mistaken for a cycle.
    this.open?.delete(v);
  }
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

/** `path()` builds the path (O(depth)); `depth` is its length, known without building it. */
export type StringVisitor = (s: string, path: () => JsonPath, location: 'value' | 'key', depth: number) => void;

/** Calls `visit` for every string and key in document order (a key before its value). */
export function walkStrings(root: unknown, visit: StringVisitor): void {
  if (typeof root === 'string') {
    visit(root, () => [], 'value', 0);
    return;
  }
  if (!isContainer(root)) return;
  const stack: ReadFrame[] = [readFrame(root, undefined)];
  const guard = new CycleGuard();
  let key: string | number = 0;
  const path = (): JsonPath => [...stack.slice(1).map((f) => f.via!), key];
  while (stack.length > 0) {
    const f = stack[stack.length - 1]!;
    if (f.i >= f.n) {
      stack.pop();
      guard.leave(f.src);
      continue;
    }
    const i = f.i++;
    let v: unknown;
    if (f.keys) {
      key = f.keys[i]!;
      visit(key, path, 'key', stack.length);
      v = (f.src as Record<string, unknown>)[key];
    } else {
      key = i;
      v = (f.src as unknown[])[i];
    }
    if (typeof v === 'string') visit(v, path, 'value', stack.length);
    else if (isContainer(v)) {
      guard.enter(stack, v);
      stack.push(readFrame(v, key));
    }
  }
}

/** Where a container sits in a tool schema: `maxLength` is widened in schemas only. */
enum SchemaPart {
  None,
  Schema,
  NameMap, // `properties` and the like: every value is a schema
}

/**
 * One open container of mapValue. A class, so every frame has one shape (fast property access).
 * An object's member values are read once (memberValues) into an array the frame owns, and
 * results replace them there; an array is copied at its first change.
 */
class MapFrame {
  i = 0;
  readonly n: number;
  /** The members' values (read once: memberValues, elementValues), then the results. */
  readonly vals: unknown[];
  /** Whether a child's result differs from the child. */
  changed = false;

  constructor(
    readonly src: Container,
    readonly keys: string[] | null, // null for arrays
    readonly newKeys: string[] | null, // transformed keys, when any changed
    readonly via: string | number | undefined, // key or index in the parent
    /** Protocol fields at this position (messages only). */
    readonly rule: FieldRule | undefined,
    readonly schema: SchemaPart,
    vals: unknown[], // the values read once (memberValues, elementValues): the walk's own
    /** Whether the object's `data` is opaque media (mediaData). */
    readonly media: boolean,
  ) {
    this.n = keys ? keys.length : (src as unknown[]).length;
    this.vals = vals;
  }

  child(i: number): unknown {
    return this.vals[i];
  }

  /** True when child i passes untouched: `_meta`, a protocol field, opaque base64. */
  keeps(i: number): boolean {
    return this.keys !== null && keepsMember(this.src as Record<string, unknown>, this.keys[i]!, this.media, this.rule);
  }

  /** Rule and schema part of child i, a container. */
  childRule(i: number): FieldRule | undefined {
    if (!this.rule) return undefined;
    return this.keys ? this.rule.members?.[this.keys[i]!] : this.rule.each;
  }

  childSchema(i: number, rule: FieldRule | undefined): SchemaPart {
    if (rule?.schema) return SchemaPart.Schema;
    if (this.schema === SchemaPart.None) return SchemaPart.None;
    if (this.schema === SchemaPart.NameMap || !this.keys) return SchemaPart.Schema;
    const key = this.keys[i]!;
    if (SCHEMA_NAME_MAPS.includes(key)) return SchemaPart.NameMap;
    return SCHEMA_DATA_KEYS.has(key) ? SchemaPart.None : SchemaPart.Schema;
  }

  /** Records the result for child i, when it differs from the child. */
  deliver(i: number, before: unknown, after: unknown): void {
    if (after === before) return;
    this.vals[i] = after;
    this.changed = true;
  }

  /** The container's result: itself when nothing changed. */
  close(): unknown {
    if (!this.changed && !this.newKeys) return this.src;
    if (!this.keys) return this.vals;
    return objectOf(this.newKeys ?? this.keys, this.vals);
  }
}

/**
 * The values of `keys` in `o`, in their order, each read once under its own key: aligned by
 * construction. (Object.values checked against a second Object.keys was not: a proxy whose
 * `ownKeys` answers in a new order each time passed the check with its values swapped.)
 */
function memberValues(o: Record<string, unknown>, keys: readonly string[]): unknown[] {
  const out = new Array<unknown>(keys.length);
  for (let k = 0; k < keys.length; k++) out[k] = o[keys[k]!];
  return out;
}

const SCHEMA_DATA_KEYS = new Set(SCHEMA_DATA);

/** What open() returns when it pushed a frame (the result comes when the frame closes). */
const NO_RESULT = Symbol('frame opened');

export interface MapOptions {
  /** Decoding: refuse an object whose keys become equal. */
  readonly checkCollisions: boolean;
  /** Where `root` sits, for error paths. */
  readonly basePath?: JsonPath;
  /** Transform for keys (default: the value transform); keys repeat, so callers may memoise. */
  readonly mapKey?: (s: string) => string;
  /** Protocol fields of `root` (a message's `params` or `result`), kept as they are. */
  readonly rule?: FieldRule;
  /** Encoding: the factor `maxLength` grows by in tool schemas (0 or absent: unchanged). */
  readonly widen?: number;
}

/**
 * Encoding: a whole base64 `data:` URI keeps its payload as it is (from the first comma on)
 * and its header is text, unless it holds the token prefix (in any ASCII case: the media type
 * or the URL-safe alphabet can spell it), when it is all text. Decoding restores a token
 * anywhere in one: a URI taken out of prose (where encoding put tokens in it) comes back
 * whole; one that holds the prefix is encoded like text (its prefix escaped), so the round
 * trip holds for every URI. Returns where the kept part begins (the length: none).
 */
export function dataUriPayload(prefix: string): (s: string) => number {
  // Searched in place, any ASCII case (a lowered copy of megabytes of base64 per URI cost more):
  // without the u flag, i folds no code point past 0x7F onto an ASCII one.
  const holdsPrefix = new RegExp(prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i');
  return (s) => (isBase64DataUri(s) && !holdsPrefix.test(s) ? s.indexOf(',') + 1 : s.length);
}

/** A string encoded by `map` up to `keptFrom(s)` and kept as it is after (see dataUriPayload). */
export function keptText(s: string, map: (s: string) => string, keptFrom: (s: string) => number): string {
  const k = keptFrom(s);
  return k === s.length ? map(s) : map(s.slice(0, k)) + s.slice(k);
}

/** A new object of `keys` and `vals`, in their order (an own `__proto__` key stays an own key). */
function objectOf(keys: readonly string[], vals: readonly unknown[]): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (let k = 0; k < keys.length; k++) {
    const key = keys[k]!;
    if (key === '__proto__') Object.defineProperty(o, key, { value: vals[k], writable: true, enumerable: true, configurable: true });
    else o[key] = vals[k];
  }
  return o;
}

/**
 * True when member `key` of `o` passes untouched: `_meta`, a protocol field, opaque base64
 * (`media`: the object's `data` is, as mediaData found).
 */
function keepsMember(o: Record<string, unknown>, key: string, media: boolean, rule: FieldRule | undefined): boolean {
  if (key === META_KEY || (key === 'data' ? media : isOpaqueMember(o, key))) return true;
  return rule?.keep?.includes(key) === true;
}

/**
 * Whether `o` has a `data` member that is opaque media (protocol-fields.ts), judged by the `type`
 * the walk read (memberValues) before any member is mapped: `type` is read once, and what it
 * was decides. (A non-enumerable own `type`, which the walk does not read, is read here.)
 */
function mediaData(o: Record<string, unknown>, shape: KeyShape, vals: readonly unknown[]): boolean {
  if (shape.dataAt < 0) return false;
  const t = shape.typeAt >= 0 ? vals[shape.typeAt] : Object.hasOwn(o, 'type') ? o.type : undefined;
  return typeof t === 'string' && MEDIA_TYPES.includes(t);
}

/**
 * What a member that is not a container becomes (one definition for frames and leaves): a string
 * mapped; `maxLength` widened by `widen` (non-zero in a tool schema only); anything else itself.
 */
function scalarResult(v: unknown, key: string | undefined, map: (s: string) => string, widen: number): unknown {
  if (typeof v === 'string') return map(v);
  return widen && key === 'maxLength' ? widenMaxLength(v, widen) : v;
}

/**
 * An object none of whose members is a container (an app of a list, a schema's property),
 * mapped at once, without a frame or a turn of the walk's loop per member; what MapFrame
 * does for it, in the same order. Returns its result (itself when nothing changed).
 */
function mapLeaf(
  src: Record<string, unknown>,
  keys: string[],
  newKeys: string[] | null,
  vals: unknown[],
  media: boolean,
  map: (s: string) => string,
  rule: FieldRule | undefined,
  widen: number,
): unknown {
  let changed = false;
  for (let k = 0; k < vals.length; k++) {
    if (keepsMember(src, keys[k]!, media, rule)) continue;
    const v = vals[k];
    const after = scalarResult(v, keys[k], map, widen);
    if (after !== v) {
      vals[k] = after; // (the array is the walk's own: memberValues)
      changed = true;
    }
  }
  if (!changed && !newKeys) return src;
  return objectOf(newKeys ?? keys, vals);
}

/** An array none of whose elements is a container (`required`, `tags`): as mapLeaf does an object. */
function mapLeafArray(src: unknown[], vals: unknown[], map: (s: string) => string): unknown {
  let changed = false;
  for (let k = 0; k < vals.length; k++) {
    const v = vals[k];
    const after = scalarResult(v, undefined, map, 0);
    if (after === v) continue;
    vals[k] = after; // (the array is the walk's own: elementValues)
    changed = true;
  }
  return changed ? vals : src;
}

/**
 * An array's elements, each read once (holes as undefined, as JSON has none): what the walk
 * tests, maps and copies is what it read, even where an element is a getter.
 */
function elementValues(src: readonly unknown[]): unknown[] {
  const copy = new Array<unknown>(src.length);
  for (let k = 0; k < src.length; k++) copy[k] = src[k];
  return copy;
}

const hasContainer = (vals: readonly unknown[]) => {
  for (let k = 0; k < vals.length; k++) if (isContainer(vals[k])) return true;
  return false;
};

/**
 * Transforms every key and string value with `map`, rebuilding only the containers on the path
 * to a change; unchanged subtrees (and an unchanged root) are returned as they are. What the
 * field policy (protocol-fields.ts) names is kept: `_meta`, opaque base64, and the protocol
 * fields of `options.rule`. Inputs are never mutated.
 */
export function mapValue(root: unknown, map: (s: string) => string, options: MapOptions): unknown {
  if (typeof root === 'string') return map(root);
  if (!isContainer(root)) return root;
  const keyMapper = new KeyMapper(options.mapKey ?? map);
  const widen = options.widen ?? 0;
  const stack: MapFrame[] = [];
  const guard = new CycleGuard();
  const pathTo = (via: string | number | undefined): JsonPath => [
    ...(options.basePath ?? []),
    ...stack.slice(1).map((f) => f.via!),
    ...(via === undefined ? [] : [via]),
  ];
  /** Opens a frame for `src`, or maps it at once (a leaf object: see mapLeaf) and returns its result. */
  const open = (src: Container, via: string | number | undefined, rule: FieldRule | undefined, schema: SchemaPart): unknown => {
    if (Array.isArray(src)) {
      const vals = elementValues(src);
      if (!hasContainer(vals)) return mapLeafArray(src, vals, map);
      guard.enter(stack, src);
      stack.push(new MapFrame(src, null, null, via, rule, schema, vals, false));
      return NO_RESULT;
    }
    const keys = Object.keys(src);
    const shape = keyMapper.map(keys);
    const newKeys = shape.mapped;
    const vals = memberValues(src, keys);
    const media = mediaData(src, shape, vals);
    // (A leaf holds no container, so it cannot hold itself: no cycle check.)
    const leaf = !hasContainer(vals);
    if (!leaf) {
      guard.enter(stack, src);
      stack.push(new MapFrame(src, keys, newKeys, via, rule, schema, vals, media));
    }
    if (newKeys && options.checkCollisions) checkCollisions(newKeys, () => pathTo(leaf ? via : undefined));
    return leaf ? mapLeaf(src, keys, newKeys, vals, media, map, rule, schema === SchemaPart.Schema ? widen : 0) : NO_RESULT;
  };
  const rootResult = open(root, undefined, options.rule, options.rule?.schema ? SchemaPart.Schema : SchemaPart.None);
  if (rootResult !== NO_RESULT) return rootResult;
  for (;;) {
    const f = stack[stack.length - 1]!;
    if (f.i < f.n) {
      const i = f.i++;
      const v = f.child(i);
      if (f.keeps(i)) continue;
      if (isContainer(v)) {
        const rule = f.childRule(i);
        const result = open(v, f.keys ? f.keys[i]! : i, rule, f.childSchema(i, rule));
        if (result !== NO_RESULT) f.deliver(i, v, result);
      } else f.deliver(i, v, scalarResult(v, f.keys?.[i], map, f.schema === SchemaPart.Schema ? widen : 0));
      continue;
    }
    const result = f.close();
    stack.pop();
    guard.leave(f.src);
    const parent = stack[stack.length - 1];
    if (!parent) return result;
    parent.deliver(parent.i - 1, f.src, result);
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
