#!/usr/bin/env node
import module from 'node:module';

// Node 22 and later keep V8's compiled code of the CLI between runs (in the OS's temp folder;
// NODE_DISABLE_COMPILE_CACHE=1 turns it off), so each start compiles less. Node 20 has no such cache.
module.enableCompileCache?.();
const { run } = await import('../dist/cli.js');
run(process.argv.slice(2));
