// Byte arrays compare as bytes. `toEqual` on two Uint8Arrays walks them as iterables and then
// as objects (every index a key, every element an `equals` call): most of what some files cost
// (json-conformance spent 7.5 s per build in it). This tester decides only what that walk
// would: two arrays of the same class that differ in length or in a byte are unequal; equal
// bytes are equal unless either carries properties of its own besides its elements that
// isDeepStrictEqual does not find equal (then the walk decides). Anything else is left to
// vitest, and a failure prints the same diff.
import { isDeepStrictEqual } from 'node:util';
import { expect } from 'vitest';

const view = (a: Uint8Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

/** Whether an empty `a` holds no enumerable property of its own. */
const bare = (a: Uint8Array) => Object.keys(a).length === 0;

expect.addEqualityTesters([
  function equalBytes(a: unknown, b: unknown): boolean | undefined {
    if (!(a instanceof Uint8Array && b instanceof Uint8Array) || a.constructor !== b.constructor) return undefined;
    if (a.length !== b.length) return false;
    // (An empty view may be of a transferred buffer, which neither a Buffer nor isDeepStrictEqual may view.)
    if (a.length === 0) return bare(a) && bare(b) ? true : undefined;
    if (!view(a).equals(view(b))) return false;
    // Own properties besides the elements, which the walk compares too: isDeepStrictEqual finds
    // them without a string per index (Object.keys made one: 0.3 s per MiB array).
    return isDeepStrictEqual(a, b) ? true : undefined;
  },
]);
