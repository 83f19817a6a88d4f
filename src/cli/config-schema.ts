// The JSON Schema of a --config file, made from the option tables in args.ts as config.ts reads
// them: the package ships it as schema/config.schema.json (scripts/gen-config-schema.ts writes
// it; test/cli-config-schema.test.ts checks the file is this and that it accepts exactly the
// files config.ts accepts). Which options apply to which command is not in it: a file does not
// say its command; the command refuses the options it does not take when it reads the file.
import { FLAG_OPTIONS, LIST_OPTIONS, NOT_IN_CONFIG, type OptionName, VALUE_OPTIONS, type ValueType, valueType } from './args.js';
import type { TERMS_FIELDS } from './config.js';
import { DURATION } from './http-args.js';

type Schema = Record<string, unknown>;

const nonEmpty: Schema = { type: 'string', minLength: 1 };

function typeSchema(type: ValueType): Schema {
  switch (type.kind) {
    case 'string':
      return { type: 'string' };
    case 'enum':
      return { enum: [...type.values] };
    case 'integer':
      return { type: 'integer', minimum: type.min, maximum: type.max };
    case 'duration':
      return { type: 'string', pattern: DURATION.source };
    case 'path':
      return nonEmpty;
    case 'terms': {
      const list = (items: Schema): Schema => ({ type: 'array', items });
      const fields: Record<(typeof TERMS_FIELDS)[number], Schema> = {
        ascii: list(nonEmpty),
        exact: list(nonEmpty),
        pairs: list({ type: 'array', items: nonEmpty, minItems: 2, maxItems: 2 }),
      };
      return { anyOf: [nonEmpty, { type: 'object', properties: fields, additionalProperties: false }] };
    }
  }
}

export function configSchema(): Schema {
  const properties: Record<string, Schema> = { $schema: { type: 'string' } };
  const inConfig = (name: OptionName) => NOT_IN_CONFIG[name] === undefined;
  for (const name of VALUE_OPTIONS.filter(inConfig)) properties[name] = typeSchema(valueType(name));
  for (const name of LIST_OPTIONS.filter(inConfig)) properties[name] = { type: 'array', items: typeSchema(valueType(name)) };
  for (const name of FLAG_OPTIONS.filter(inConfig)) properties[name] = { type: 'boolean' };
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: 'mcp-payload-codec --config file',
    description:
      'Options of an mcp-payload-codec command, named as after -- on the command line; options given on the command line replace these (a list whole).',
    type: 'object',
    properties,
    additionalProperties: false,
  };
}
