// The JSON Schema of --config files, shipped as schema/config.schema.json: it is what the option
// tables make today, and an editor checking a file with it (ajv here) accepts exactly the files
// the CLI's loader accepts, and points at a place the loader names when it refuses one.
import { readFileSync } from 'node:fs';
import { Ajv, type ErrorObject } from 'ajv';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { render } from '../scripts/gen-config-schema.ts';
import { FLAG_OPTIONS, LIST_OPTIONS, type OptionName, VALUE_OPTIONS, type ValueType, valueType } from '../src/cli/args.ts';
import { configFromJson } from '../src/cli/config.ts';
import { UsageError } from '../src/cli/usage-error.ts';
import { runs } from './arbitraries.ts';

const SHIPPED = new URL('../schema/config.schema.json', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

/** RFC 6901, written here as the reference. */
const pointer = (at: string, key: string | number) => `${at}/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`;

// Values aimed at each type's edges, then any JSON.
const edges = fc.constantFrom<unknown>(
  '',
  '0',
  '0s',
  '00s',
  '010m',
  '7',
  '7x',
  '1h ',
  'lower',
  'upper',
  'nfkc',
  'sse',
  0,
  -1,
  1,
  1.5,
  65535,
  65536,
  2 ** 53,
  2 ** 53 - 1,
  true,
  false,
  null,
  [],
  {},
  ['x'],
  [''],
  [1],
);
const anyJson = fc.jsonValue({ maxDepth: 2 });
const termsObject = fc.dictionary(
  fc.constantFrom('ascii', 'exact', 'pairs', 'other'),
  fc.oneof(
    fc.array(fc.oneof(fc.string({ maxLength: 3 }), fc.array(fc.string({ maxLength: 2 }), { maxLength: 3 }), edges), { maxLength: 3 }),
    edges,
  ),
  { maxKeys: 3 },
);
function good(type: ValueType): fc.Arbitrary<unknown> {
  switch (type.kind) {
    case 'string':
      return fc.string({ maxLength: 4 });
    case 'enum':
      return fc.constantFrom(...type.values);
    case 'integer':
      return fc.integer({ min: type.min, max: Math.min(type.max, 2 ** 31) });
    case 'duration':
      return fc.tuple(fc.integer({ min: 0, max: 999 }), fc.constantFrom('', 's', 'm', 'h')).map(([n, u]) => `${n}${u}`);
    case 'path':
      return fc.string({ maxLength: 4 });
    case 'terms':
      return fc.oneof(fc.string({ maxLength: 4 }), termsObject);
  }
}
/** Values on either side of a type's bounds. */
function bounds(type: ValueType): fc.Arbitrary<unknown> {
  switch (type.kind) {
    case 'integer':
      return fc.constantFrom(type.min - 1, type.min, type.max, type.max + 1, type.min + 0.5, String(type.min));
    case 'enum':
      return fc.constantFrom(...type.values.map((v) => v.toUpperCase()), ...type.values.map((v) => ` ${v}`), '');
    case 'duration':
      return fc.constantFrom('0', '0s', '00h', '010m', '1', '7x', '1h ', ' 1s', '1.5s', '-1s', 1);
    default:
      return fc.constantFrom('', ' ', 0, {}, []);
  }
}
const valueFor = (name: string): fc.Arbitrary<unknown> => {
  const either = (type: ValueType) => fc.oneof({ weight: 3, arbitrary: good(type) }, { weight: 1, arbitrary: bounds(type) });
  const kind = (VALUE_OPTIONS as readonly string[]).includes(name)
    ? either(valueType(name as 'prefix'))
    : (LIST_OPTIONS as readonly string[]).includes(name)
      ? fc.array(fc.oneof({ weight: 4, arbitrary: either(valueType(name as 'root')) }, { weight: 1, arbitrary: edges }), { maxLength: 3 })
      : fc.boolean();
  return fc.oneof({ weight: 4, arbitrary: kind }, { weight: 1, arbitrary: edges }, { weight: 1, arbitrary: anyJson });
};
const names: string[] = [...VALUE_OPTIONS, ...LIST_OPTIONS, ...FLAG_OPTIONS, '$schema', 'unknown', 'a/b~c', '__proto__'];
const configFile = fc.oneof(
  {
    weight: 20,
    arbitrary: fc
      .uniqueArray(fc.constantFrom(...names), { maxLength: 5 })
      .chain((keys) => fc.tuple(...keys.map((k) => valueFor(k).map((v) => [k, v] as const))))
      .map((entries) => Object.fromEntries(entries)),
  },
  { weight: 1, arbitrary: anyJson },
);

/** The places ajv names: the instance path, or the key it does not allow. */
const places = (errors: ErrorObject[]) =>
  new Set(
    errors.map((e) => (e.keyword === 'additionalProperties' ? pointer(e.instancePath, e.params.additionalProperty) : e.instancePath)),
  );

describe('schema/config.schema.json', () => {
  it('is current: the shipped file is what the option tables make (after adding an option: npm run schema)', () => {
    expect(readFileSync(SHIPPED, 'utf8')).toBe(render());
  });

  it('ships in the package, under its own export', () => {
    expect(pkg.files).toContain('schema');
    expect(pkg.exports['./schema/config.schema.json']).toBe('./schema/config.schema.json');
  });

  it('accepts exactly the files the loader accepts; a refusal names a place the schema names', () => {
    const validate = new Ajv({ allErrors: true, strict: true }).compile(JSON.parse(readFileSync(SHIPPED, 'utf8')));
    let accepted = 0;
    fc.assert(
      fc.property(configFile, (json) => {
        const schemaOk = validate(json);
        let refused: string | undefined;
        try {
          configFromJson(json, '/base');
        } catch (e) {
          if (!(e instanceof UsageError)) throw e;
          refused = e.message;
        }
        expect(refused === undefined, `${JSON.stringify(json)}: loader ${refused}`).toBe(schemaOk);
        if (refused === undefined) return void accepted++;
        const named = [...places(validate.errors!)].some((p) => (p === '' ? !refused.startsWith('/') : refused.startsWith(`${p}: `)));
        expect(named, `${refused}; schema: ${[...places(validate.errors!)]}`).toBe(true);
      }),
      runs(2000),
    );
    expect(accepted).toBeGreaterThan(100); // both sides of the line are reached
  });

  it('holds every option the command line has, but the ones a file does not', () => {
    const { properties } = JSON.parse(readFileSync(SHIPPED, 'utf8'));
    const options: OptionName[] = [...VALUE_OPTIONS, ...LIST_OPTIONS, ...FLAG_OPTIONS];
    expect(Object.keys(properties).sort()).toEqual(
      ['$schema', ...options.filter((n) => !['help', 'config', 'header', 'upstream-header'].includes(n))].sort(),
    );
  });

  it('docs/CLI.md: its table names every key once, and its example is a file both accept (after adding an option: a row)', () => {
    const section = readFileSync(new URL('../docs/CLI.md', import.meta.url), 'utf8');
    const table = section.slice(section.indexOf('| key | value |'), section.indexOf('\n\n', section.indexOf('| key | value |')));
    const keys = table
      .split('\n')
      .slice(2)
      .flatMap((row) => [...row.split('|')[1]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!));
    const { properties } = JSON.parse(readFileSync(SHIPPED, 'utf8'));
    expect(keys.toSorted()).toEqual(
      Object.keys(properties)
        .filter((k) => k !== '$schema')
        .toSorted(),
    );
    const example = JSON.parse(/```json\n(\{\n {2}"\$schema"[^`]*)```/.exec(section)![1]!);
    expect(new Ajv({ strict: true }).validate(JSON.parse(readFileSync(SHIPPED, 'utf8')), example)).toBe(true);
    expect(() => configFromJson(example, '/base')).not.toThrow();
  });
});
