// The hooks project's files share one core (vitest.config.ts HOOKS): each starts with the indexed
// path on, as the shipped core has it, whatever the file before it left.
import { hooks } from './core-hooks.ts';

hooks.indexedPath(1);
