// Captures the tool lists of real servers for the path rule's fixtures
// (test/fixtures/tool-lists/*.json, read by test/guard-paths-servers.test.ts): each server from
// node_modules is started over stdio with the real SDK client, and its tools/list (every page)
// is written as it came. Run again after updating a server: node scripts/tool-lists.mjs, then
// npx biome format --write test/fixtures/tool-lists
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const root = join(import.meta.dirname, '..');
const pkg = (name, file) => join(root, 'node_modules', name, file);
const scratch = mkdtempSync(join(tmpdir(), 'tool-lists-'));
const SERVERS = {
  'server-filesystem': [pkg('@modelcontextprotocol/server-filesystem', 'dist/index.js'), scratch],
  'server-everything': [pkg('@modelcontextprotocol/server-everything', 'dist/index.js')],
  'server-memory': [pkg('@modelcontextprotocol/server-memory', 'dist/index.js')],
  // Lists its tools without a device (calls would need one). Not a devDependency (its
  // dependencies want Node 22.12 and platform-specific binaries): to capture it again,
  // npm install --no-save --ignore-scripts @mobilenext/mobile-mcp@1.0.4 first.
  'mobile-mcp': [pkg('@mobilenext/mobile-mcp', 'lib/index.js')],
};

try {
  for (const [name, args] of Object.entries(SERVERS)) {
    if (!existsSync(args[0])) {
      console.log(`${name}: not installed, its list kept as it is`);
      continue;
    }
    const { version } = JSON.parse(readFileSync(join(args[0], '..', '..', 'package.json'), 'utf8'));
    const transport = new StdioClientTransport({
      command: process.execPath,
      args,
      cwd: scratch,
      env: { PATH: process.env.PATH, HOME: scratch, MEMORY_FILE_PATH: join(scratch, 'memory.jsonl') },
      stderr: 'ignore',
    });
    const client = new Client({ name: 'tool-lists', version: '1.0.0' });
    await client.connect(transport);
    const tools = [];
    let cursor;
    do {
      const page = await client.listTools(cursor === undefined ? undefined : { cursor });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    await client.close();
    writeFileSync(
      join(root, 'test', 'fixtures', 'tool-lists', `${name}.json`),
      `${JSON.stringify({ server: name, version, tools }, null, 2)}\n`,
    );
    console.log(`${name} ${version}: ${tools.length} tools`);
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
