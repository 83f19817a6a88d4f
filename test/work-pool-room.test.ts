// assertRoom (src/stream/work-pool.ts), which the proxy asks before each request it takes on:
// room found stays found until something is allocated (frees only add room), so a check with no
// allocation since the last is a comparison, not a 2 MiB block allocated and freed; and after
// any allocation it is a real check again: memory filled since is a WasmMemoryFullError (the
// proxy's 503), memory given back is room again.
import { afterEach, describe, expect, it } from 'vitest';
import { allocate, allocationCount, free, heapStats } from '../src/core/memory.ts';
import { WasmMemoryFullError } from '../src/errors.ts';
import { assertRoom } from '../src/stream/work-pool.ts';

const MiB = 1024 * 1024;
const held: [number, number][] = [];
afterEach(() => {
  for (const [ptr, size] of held.splice(0).reverse()) free(ptr, size);
});

/** Allocates up to `left` bytes short of 4 GiB (address space only: the pages are never touched). */
function fillTo(left: number): void {
  const size = 2 ** 32 - heapStats().top - left;
  held.push([allocate(size), size]);
}

const hasRoom = () => {
  try {
    assertRoom();
    return true;
  } catch (e) {
    if (e instanceof WasmMemoryFullError) return false;
    throw e;
  }
};

describe('assertRoom', () => {
  it('with nothing allocated since room was found, allocates nothing', () => {
    assertRoom();
    const before = allocationCount();
    assertRoom();
    assertRoom();
    expect(allocationCount()).toBe(before);
  });

  it('after an allocation, checks again: memory filled since is full, given back is room', () => {
    expect(hasRoom()).toBe(true);
    fillTo(1 * MiB); // (less than a block's room left)
    expect(hasRoom()).toBe(false);
    expect(hasRoom()).toBe(false); // (a failed check found no room: it stays a real check)
    const [ptr, size] = held.pop()!;
    free(ptr, size);
    expect(hasRoom()).toBe(true);
    fillTo(3 * MiB); // (room for one block)
    expect(hasRoom()).toBe(true);
    const small = allocate(2 * MiB); // (takes most of it)
    held.push([small, 2 * MiB]);
    expect(hasRoom()).toBe(false);
    free(...held.pop()!);
    expect(hasRoom()).toBe(true);
  });
});
