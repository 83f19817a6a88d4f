// inputSchema checks for the tool guard. The compiler (ajv, re2js) is loaded on first need with
// import(): until it is in, a check that needs it waits for it (a call never skips validation).
import type { ValidateFunction } from 'ajv';

type Compile = (schema: Record<string, unknown>) => ValidateFunction;
let compile: Compile | undefined;
let loading: Promise<Compile> | undefined;
// A server sends new schema objects with every tools/list, mostly equal to the last ones: the
// object finds its validator at once, an equal schema by its text, and the text cache is an LRU
// so that a server that keeps changing its schemas cannot grow it without bound.
const byObject = new WeakMap<object, ValidateFunction>();
const byText = new Map<string, ValidateFunction>();
const MAX_SCHEMAS = 256;
const MAX_CACHED_TEXT = 64 * 1024;
let compilations = 0;

function validatorOf(schema: Record<string, unknown>, compile: Compile): ValidateFunction {
  let validate = byObject.get(schema);
  if (validate) return validate;
  const text = JSON.stringify(schema);
  if (text.length > MAX_CACHED_TEXT) {
    // (A server sizes its schemas: huge ones are not held by their text, only by the object.)
    validate = compile(schema);
    compilations++;
    byObject.set(schema, validate);
    return validate;
  }
  validate = byText.get(text);
  if (validate)
    byText.delete(text); // re-inserted below as the most recent
  else {
    validate = compile(schema);
    compilations++;
    if (byText.size >= MAX_SCHEMAS) byText.delete(byText.keys().next().value!);
  }
  byText.set(text, validate);
  byObject.set(schema, validate);
  return validate;
}

/** How many schemas were compiled and how many the text cache holds (for tests). */
export const schemaCacheStats = () => ({ compilations, cached: byText.size, max: MAX_SCHEMAS });

/** Loads the schema compiler (once); resolves when checks can run synchronously. */
export function loadSchemaCompiler(): Promise<void> {
  loading ??= import('./schema-compiler.js').then((m) => (compile = m.compileSchema));
  return loading.then(() => undefined);
}

export const schemaCompilerLoaded = (): boolean => compile !== undefined;

/** Why `args` fail `schema`: the JSON path and the rule, never the value. */
export interface SchemaProblem {
  path: string;
  text: string;
}

/** Synchronous check; needs the compiler loaded (see loadSchemaCompiler). Equal schemas are compiled once. */
export function schemaProblem(schema: Record<string, unknown>, args: Record<string, unknown>): SchemaProblem | undefined {
  if (!compile) throw new Error('the schema compiler is not loaded yet (await loadSchemaCompiler() first)');
  const validate = validatorOf(schema, compile);
  if (validate(args)) return undefined;
  const e = validate.errors![0]!;
  const path =
    e.keyword === 'required' ? `${e.instancePath}/${(e.params as { missingProperty: string }).missingProperty}` : e.instancePath || '/';
  return { path, text: `${path} ${e.message} (rule "${e.keyword}")` };
}
