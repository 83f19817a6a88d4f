import type { CommandHelp } from './render.js';

export const SERVE_HELP: CommandHelp = {
  usage: 'serve [options] [--] COMMAND [ARGS...]',
  summary: 'expose a stdio MCP server over Streamable HTTP, filtered',
  about: [
    "Listens on http://HOST:PORT/mcp and runs the server's command (from the first argument that is not an option of ours) as a child per MCP session: started at initialize, ended on DELETE, when idle, when it exits, or at shutdown (its requests in flight are then answered at once; a child that ignores SIGTERM gets SIGKILL 3 s later). Requests are decoded on their way to the child, its messages encoded on their way out. Each session keeps its last 1000 events for Last-Event-ID resumption. Numbers and ids pass byte for byte.",
    "A line from the server that is not JSON is skipped with a note on stderr. Beyond 8 MiB not yet read by the client, serve stops reading the server's stdout.",
  ],
  options: {
    root: {
      text: "with a guard: block calls whose path arguments resolve outside DIR (symlinks followed, as wrap); client: the roots each session's client lists",
    },
    confirm: {
      text: "with a guard: ask the client's user first (elicitation/create on the call's event stream) before a call to tool NAME, or to any tool annotated destructiveHint and not readOnlyHint, as wrap",
    },
    audit: {
      text: 'append a JSON line per blocked, confirmed, declined or timed-out call to FILE, with its session, as wrap (mode 0600; never argument values)',
    },
    'call-timeout': {
      text: 'answer a request the server leaves unanswered this long (30s, 5m, 1h), on its stream, and send the server notifications/cancelled (as wrap)',
    },
    'max-message-bytes': { text: 'bigger request bodies get 413, a bigger message from the server ends its session (default: 536870912)' },
  },
  notes: [
    'Runs until SIGINT or SIGTERM, then exits 0 (SIGHUP re-reads the --auth-token-file tokens, or stops it as well when there are none); 2 for a usage error.',
  ],
};
