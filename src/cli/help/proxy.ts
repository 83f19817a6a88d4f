import { REMOTE_GUARD_HELP } from './options.js';
import type { CommandHelp } from './render.js';

export const PROXY_HELP: CommandHelp = {
  usage: 'proxy --upstream URL [options]',
  summary: 'listen on HTTP in front of a remote Streamable HTTP MCP server, filtered',
  about: [
    'Listens on http://HOST:PORT/mcp in front of a remote Streamable HTTP MCP server: requests are decoded on their way up, responses (JSON and event streams) encoded on their way down.',
  ],
  options: {
    ...REMOTE_GUARD_HELP,
    'call-timeout': {
      text: 'answer a request the upstream leaves unanswered this long (30s, 5m, 1h), in its response (JSON or an event), and POST the upstream notifications/cancelled (as wrap)',
    },
    'max-message-bytes': { text: 'bigger request bodies get 413, a bigger message in a response ends it (default: 536870912)' },
  },
  notes: [
    'Runs until SIGINT or SIGTERM, then exits 0 (SIGHUP re-reads the --auth-token-file tokens, or stops it as well when there are none); 2 for a usage error.',
  ],
};
