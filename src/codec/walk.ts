// Walks over JSON values: bounded recursion under an explicit stack of frames, so 100,000 levels
// of nesting cost memory, not a stack overflow.
import { type JsonPath, PayloadKeyCollisionError } from '../errors.js';
import { KeyMapper } from './key-shapes.js';
import { type FieldRule, keepsMember, opaqueMembers, SCHEMA_DATA, SCHEMA_NAME_MAPS, widenMaxLength } from './protocol-fields.js';

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
 * One open container of mapValue's frames (past INLINE_DEPTH: see mapValue). A class, so every
 * frame has one shape (fast property access). Its member values are read once (memberValues,
 * elementValues) into an array the frame owns, and results replace them there.
 */
class MapFrame {
  readonly n: number;

  constructor(
    readonly src: Container,
    readonly keys: string[] | null, // null for arrays
    readonly newKeys: string[] | null, // transformed keys, when any changed
    readonly via: string | number | undefined, // key or index in the parent
    /** Protocol fields at this position (messages only). */
    readonly rule: FieldRule | undefined,
    readonly schema: SchemaPart,
    /** The members' values (read once), then the results: the walk's own. */
    readonly vals: unknown[],
    /** The object's opaque members (opaqueMembers). */
    readonly opaque: number,
    /** The next child (a frame made for a container mapped part-way inline starts past its first children). */
    public i: number,
    /** Whether a child's result differs from the child. */
    public changed: boolean,
  ) {
    this.n = vals.length;
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

/** The rule of a container member `key` (an array's element: undefined) under `rule`. */
function childRule(rule: FieldRule | undefined, key: string | undefined): FieldRule | undefined {
  if (!rule) return undefined;
  return key === undefined ? rule.each : rule.members?.[key];
}

/** The schema part of a container member `key` (an array's element: undefined) of a container in `schema`. */
function childSchema(schema: SchemaPart, key: string | undefined, rule: FieldRule | undefined): SchemaPart {
  if (rule?.schema) return SchemaPart.Schema;
  if (schema === SchemaPart.None) return SchemaPart.None;
  if (schema === SchemaPart.NameMap || key === undefined) return SchemaPart.Schema;
  if (SCHEMA_NAME_MAPS.includes(key)) return SchemaPart.NameMap;
  return SCHEMA_DATA_KEYS.has(key) ? SchemaPart.None : SchemaPart.Schema;
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

/** What mapping a container returns when it left frames to the walk's loop (the result comes when they close). */
const SUSPENDED = Symbol('frames opened');

/**
 * Levels of containers mapped by recursion below each frame (or the root) before the walk
 * takes frames: the JS stack stays bounded at any nesting, and a message's few levels (a tool,
 * its schema, `properties`, each property) cost no frame at all.
 */
export const INLINE_DEPTH = 12;

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
  /** Levels mapped by recursion before frames (default INLINE_DEPTH; tests hold smaller ones to it). */
  readonly inlineDepth?: number;
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
 * What a member that is not a container becomes (one definition for frames and inline): a string
 * mapped; `maxLength` widened by `widen` (non-zero in a tool schema only); anything else itself.
 */
function scalarResult(v: unknown, key: string | undefined, map: (s: string) => string, widen: number): unknown {
  if (typeof v === 'string') return map(v);
  return widen && key === 'maxLength' ? widenMaxLength(v, widen) : v;
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

/**
 * Transforms every key and string value with `map`, rebuilding only the containers on the path
 * to a change; unchanged subtrees (and an unchanged root) are returned as they are. What the
 * field policy (protocol-fields.ts) names is kept: `_meta`, opaque base64, and the protocol
 * fields of `options.rule`. Inputs are never mutated.
 *
 * Containers are mapped by recursion (mapObject, mapArray) up to `inlineDepth` levels below the
 * last frame; a container still holding containers there suspends: it and each container above
 * it that is mapped part-way become frames (MapFrame, with what they have read and mapped so
 * far), and the loop goes on from the innermost. Either way every member is read once, in
 * document order, and mapped by the same steps (keepsMember, scalarResult).
 */
export function mapValue(root: unknown, map: (s: string) => string, options: MapOptions): unknown {
  if (typeof root === 'string') return map(root);
  if (!isContainer(root)) return root;
  const keyMapper = new KeyMapper(options.mapKey ?? map);
  const widen = options.widen ?? 0;
  const inlineDepth = options.inlineDepth ?? INLINE_DEPTH;
  const check = options.checkCollisions;
  const stack: MapFrame[] = [];
  const guard = new CycleGuard();
  /** Keys or indexes from the top frame down to the container mapped inline (collision paths: kept when checking). */
  const vias: (string | number)[] = [];
  /** The frames of a suspended recursion, innermost first. */
  const pending: MapFrame[] = [];
  const pathTo = (): JsonPath => [...(options.basePath ?? []), ...stack.slice(1).map((f) => f.via!), ...vias];
  const suspend = (f: MapFrame) => {
    pending.push(f);
    return SUSPENDED;
  };

  const mapArray = (
    src: unknown[],
    via: string | number | undefined,
    rule: FieldRule | undefined,
    schema: SchemaPart,
    depth: number,
  ): unknown => {
    const vals = elementValues(src);
    let changed = false;
    let each: FieldRule | undefined | null = null; // (worked out at the first container)
    let eachSchema = SchemaPart.None;
    for (let k = 0; k < vals.length; k++) {
      const v = vals[k];
      let after: unknown;
      if (isContainer(v)) {
        if (depth === 0) return suspend(new MapFrame(src, null, null, via, rule, schema, vals, 0, k, changed));
        if (each === null) {
          each = childRule(rule, undefined);
          eachSchema = childSchema(schema, undefined, each);
        }
        if (check) vias.push(k);
        after = mapNode(v, k, each, eachSchema, depth - 1);
        if (after === SUSPENDED) return suspend(new MapFrame(src, null, null, via, rule, schema, vals, 0, k + 1, changed));
        if (check) vias.pop();
      } else after = scalarResult(v, undefined, map, 0);
      if (after !== v) {
        vals[k] = after; // (the array is the walk's own: elementValues)
        changed = true;
      }
    }
    return changed ? vals : src;
  };

  const mapObject = (
    src: Record<string, unknown>,
    via: string | number | undefined,
    rule: FieldRule | undefined,
    schema: SchemaPart,
    depth: number,
  ): unknown => {
    const keys = Object.keys(src);
    const shape = keyMapper.map(keys);
    const newKeys = shape.mapped;
    const vals = memberValues(src, keys);
    const opaque = opaqueMembers(src, shape, vals);
    if (newKeys && check) checkCollisions(newKeys, pathTo);
    const widenHere = schema === SchemaPart.Schema ? widen : 0;
    let changed = false;
    for (let k = 0; k < vals.length; k++) {
      const key = keys[k]!;
      if (keepsMember(key, opaque, rule)) continue;
      const v = vals[k];
      let after: unknown;
      if (isContainer(v)) {
        // (Members before k are mapped, but none of them was a container: the frame starts at k.)
        if (depth === 0) return suspend(new MapFrame(src, keys, newKeys, via, rule, schema, vals, opaque, k, changed));
        const r = childRule(rule, key);
        if (check) vias.push(key);
        after = mapNode(v, key, r, childSchema(schema, key, r), depth - 1);
        if (after === SUSPENDED) return suspend(new MapFrame(src, keys, newKeys, via, rule, schema, vals, opaque, k + 1, changed));
        if (check) vias.pop();
      } else after = scalarResult(v, key, map, widenHere);
      if (after !== v) {
        vals[k] = after; // (the array is the walk's own: memberValues)
        changed = true;
      }
    }
    if (!changed && !newKeys) return src;
    return objectOf(newKeys ?? keys, vals);
  };

  const mapNode = (
    src: Container,
    via: string | number | undefined,
    rule: FieldRule | undefined,
    schema: SchemaPart,
    depth: number,
  ): unknown => (Array.isArray(src) ? mapArray(src, via, rule, schema, depth) : mapObject(src, via, rule, schema, depth));

  /** Maps `src` (by recursion), or leaves frames for it on the stack and returns SUSPENDED. */
  const open = (src: Container, via: string | number | undefined, rule: FieldRule | undefined, schema: SchemaPart): unknown => {
    if (check && via !== undefined) vias.push(via);
    const result = mapNode(src, via, rule, schema, inlineDepth);
    vias.length = 0;
    if (result !== SUSPENDED) return result;
    for (let p = pending.length - 1; p >= 0; p--) {
      guard.enter(stack, pending[p]!.src);
      stack.push(pending[p]!);
    }
    pending.length = 0;
    return SUSPENDED;
  };

  const rootResult = open(root, undefined, options.rule, options.rule?.schema ? SchemaPart.Schema : SchemaPart.None);
  if (rootResult !== SUSPENDED) return rootResult;
  for (;;) {
    const f = stack[stack.length - 1]!;
    if (f.i < f.n) {
      const i = f.i++;
      const v = f.vals[i];
      const key = f.keys ? f.keys[i]! : undefined;
      if (key !== undefined && keepsMember(key, f.opaque, f.rule)) continue;
      if (isContainer(v)) {
        const rule = childRule(f.rule, key);
        const result = open(v, key ?? i, rule, childSchema(f.schema, key, rule));
        if (result !== SUSPENDED) f.deliver(i, v, result);
      } else f.deliver(i, v, scalarResult(v, key, map, f.schema === SchemaPart.Schema ? widen : 0));
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
