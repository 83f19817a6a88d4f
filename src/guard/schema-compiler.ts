// The schema compiler behind the tool guard: ajv (draft-07 and 2020-12) with the server's
// patterns run on re2js. Loaded by schema.ts with import() the first time a guard needs
// it, so hosts, `wrap` without --guard and `import 'mcp-payload-codec/mcp'` never load ajv.
import { Ajv, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { linearPattern, neutralisePatternProperties } from './linear-pattern.js';

// `pattern`, `patternProperties` and `propertyNames` patterns are the server's: they run on
// re2js (linear time), never on a backtracking engine; see linear-pattern.ts.
const AJV_OPTIONS = { allErrors: false, strict: false, validateFormats: false, code: { regExp: linearPattern } };
let ajv: Ajv | undefined;
let ajv2020: Ajv2020 | undefined;

/** One ajv per draft, made the first time a schema of that draft comes. */
function ajvFor(is2020: boolean): Ajv | Ajv2020 {
  if (is2020) {
    ajv2020 ??= new Ajv2020(AJV_OPTIONS);
    return ajv2020;
  }
  ajv ??= new Ajv(AJV_OPTIONS);
  return ajv;
}

export function compileSchema(schema: Record<string, unknown>): ValidateFunction {
  const is2020 = typeof schema.$schema === 'string' && schema.$schema.includes('2020-12');
  const { $schema: _ignored, ...rest } = schema;
  const checkable = neutralisePatternProperties(is2020 ? schema : rest) as Record<string, unknown>;
  const instance = ajvFor(is2020);
  const validate = instance.compile(checkable);
  // ajv keeps every schema it compiled, keyed by the object; schema.ts caches the validators
  // (bounded), so ajv's copy would only grow.
  instance.removeSchema(checkable);
  return validate;
}
