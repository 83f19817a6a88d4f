// The core's compiles are skipped when their inputs are the ones build/ was made from
// (scripts/build-core.mjs, coreInputs): the hash must change with any byte of any input, in any
// folder of assembly/, and with nothing else (a touched file, a file's place in the listing).
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a build script, plain JavaScript without types
import { coreInputs } from '../scripts/build-core.mjs';

const ROOT = join(import.meta.dirname, '..');
const copy = mkdtempSync(join(tmpdir(), 'core-inputs-'));
for (const path of ['assembly', 'asconfig.json', 'scripts/build-core.mjs', 'node_modules/assemblyscript/package.json']) {
  mkdirSync(join(copy, path, '..'), { recursive: true });
  cpSync(join(ROOT, path), join(copy, path), { recursive: true });
}
afterAll(() => rmSync(copy, { recursive: true, force: true }));

describe('coreInputs', () => {
  const original = coreInputs(copy) as string;

  it("is the tree's own hash, and the same again for the same bytes", () => {
    expect(original).toBe(coreInputs(ROOT));
    expect(coreInputs(copy)).toBe(original);
  });

  it.each([
    'assembly/abi.ts',
    'assembly/json/indexed.ts',
    'asconfig.json',
    'scripts/build-core.mjs',
    'node_modules/assemblyscript/package.json',
  ])('changes with one byte of %s, and comes back with it', (path) => {
    const file = join(copy, path);
    const bytes = readFileSync(file);
    writeFileSync(file, Buffer.concat([bytes, Buffer.from(' ')]));
    expect(coreInputs(copy)).not.toBe(original);
    writeFileSync(file, bytes);
    expect(coreInputs(copy)).toBe(original);
  });

  it('changes when a file is added to assembly/', () => {
    writeFileSync(join(copy, 'assembly', 'zz-new.ts'), '');
    expect(coreInputs(copy)).not.toBe(original);
    rmSync(join(copy, 'assembly', 'zz-new.ts'));
    expect(coreInputs(copy)).toBe(original);
  });
});
