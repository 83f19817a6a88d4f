// Object keys transformed once per shape (the walk's keys: walk.ts).

/** What the walk needs of an object's key list, worked out once per shape. */
export interface KeyShape {
  /** The keys transformed, or null when none changed. */
  readonly mapped: string[] | null;
  /** Where `data`, `type`, `blob` and `uri` are among the keys, or -1 (the opaque members: protocol-fields.ts). */
  readonly dataAt: number;
  readonly typeAt: number;
  readonly blobAt: number;
  readonly uriAt: number;
}

/**
 * An object's keys transformed, with where `data` and `type` sit. Objects of one shape (every
 * app of a list, every property of a schema) repeat their keys in the same order: the last few
 * key lists of each length are kept with their shapes, and a list equal to one of them
 * (compared key by key: JSON.parse interns keys, so mostly by reference) costs no transform of
 * its own. A few, not one: a tool's schema nests objects of three keys in three shapes, in turn.
 */
export class KeyMapper {
  private readonly shapes: ({ keys: string[]; shape: KeyShape }[] | undefined)[] = []; // (made as lengths come: one mapper per call)

  constructor(private readonly mapKey: (s: string) => string) {}

  map(keys: string[]): KeyShape {
    const n = keys.length;
    let seen = this.shapes[n];
    if (!seen && n < MAX_SHAPE_KEYS) {
      seen = [];
      this.shapes[n] = seen;
    }
    if (seen) for (let s = 0; s < seen.length; s++) if (sameKeys(seen[s]!.keys, keys)) return seen[s]!.shape;
    let mapped: string[] | null = null;
    for (let k = 0; k < n; k++) {
      const nk = this.mapKey(keys[k]!);
      if (mapped) mapped.push(nk);
      else if (nk !== keys[k]) {
        mapped = keys.slice(0, k);
        mapped.push(nk);
      }
    }
    const shape: KeyShape = {
      mapped,
      dataAt: keys.indexOf('data'),
      typeAt: keys.indexOf('type'),
      blobAt: keys.indexOf('blob'),
      uriAt: keys.indexOf('uri'),
    };
    if (seen) {
      if (seen.length === SHAPES_PER_SIZE) seen.pop();
      seen.unshift({ keys, shape });
    }
    return shape;
  }
}

/** Key lists this long or longer are not kept (see KeyMapper). */
const MAX_SHAPE_KEYS = 32;
/** Key lists kept per length, the most recent first (see KeyMapper). */
const SHAPES_PER_SIZE = 4;

/** Whether two key lists of one length (KeyMapper keeps them by length) are equal, key by key. */
function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false;
  return true;
}
