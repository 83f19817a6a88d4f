// inputSchema checks for the tool guard. The compiler (ajv, re2js) is loaded on first need with
// import(): until it is in, a check that needs it waits for it (a call never skips validation).
import type { ValidateFunction } from 'ajv';

type Compile = (schema: Record<string, unknown>) => ValidateFunction;
let compile: Compile | undefined;
let loading: Promise<Compile> | undefined;
const compiled = new WeakMap<object, ValidateFunction>();

/** Loads the schema compiler (once); resolves when checks can run synchronously. */
export function loadSchemaCompiler(): Promise<void> {
  loading ??= import('./guard-compiler.js').then((m) => (compile = m.compileSchema));
  return loading.then(() => undefined);
}

export const schemaCompilerLoaded = (): boolean => compile !== undefined;

/** Why `args` fail `schema`: the JSON path and the rule, never the value. */
export interface SchemaProblem {
  path: string;
  text: string;
}

/** Synchronous check; needs the compiler loaded (see loadSchemaCompiler). Each schema object is compiled once. */
export function schemaProblem(schema: Record<string, unknown>, args: Record<string, unknown>): SchemaProblem | undefined {
  if (!compile) throw new Error('the schema compiler is not loaded yet (await loadSchemaCompiler() first)');
  let validate = compiled.get(schema);
  if (!validate) {
    validate = compile(schema);
    compiled.set(schema, validate);
  }
  if (validate(args)) return undefined;
  const e = validate.errors![0]!;
  const path = e.keyword === 'required' ? `${e.instancePath}/${(e.params as { missingProperty: string }).missingProperty}` : e.instancePath || '/';
  return { path, text: `${path} ${e.message} (rule "${e.keyword}")` };
}
