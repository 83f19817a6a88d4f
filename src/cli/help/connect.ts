import { REMOTE_GUARD_HELP } from './options.js';
import type { CommandHelp } from './render.js';

export const CONNECT_HELP: CommandHelp = {
  usage: 'connect URL [options]',
  summary: 'a stdio MCP server that forwards to a remote Streamable HTTP one, filtered',
  about: [
    "A stdio MCP server that forwards to the remote Streamable HTTP MCP server at URL: what the client sends is decoded, what comes back encoded. Keeps the session, opens the server's GET stream, ends the session with DELETE when stdin closes.",
  ],
  options: {
    ...REMOTE_GUARD_HELP,
    'call-timeout': {
      text: 'answer a request the server leaves unanswered this long (30s, 5m, 1h) and POST it notifications/cancelled (as wrap)',
    },
    'max-message-bytes': {
      text: 'a bigger line from the client ends connect, a bigger message from the server ends its response (default: 536870912)',
    },
  },
  notes: ['Exit status: 0 when stdin ends; 1 if connect itself fails (the reason on stderr); 2 for a usage error.'],
};
