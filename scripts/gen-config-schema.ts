// Writes schema/config.schema.json, the JSON Schema of a --config file, from the option tables
// (src/cli/args.ts, through src/cli/config-schema.ts). test/cli-config-schema.test.ts fails when
// the committed file is not what this renders (after an option is added or retyped).
// Run: npm run schema
import { writeFileSync } from 'node:fs';
import { configSchema } from '../src/cli/config-schema.ts';

export const render = (): string => `${JSON.stringify(configSchema(), null, 2)}\n`;

if (process.argv[1]?.includes('gen-config-schema')) {
  writeFileSync(new URL('../schema/config.schema.json', import.meta.url), render());
}
