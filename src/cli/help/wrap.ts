import type { CommandHelp } from './render.js';

export const WRAP_HELP: CommandHelp = {
  usage: 'wrap [options] [--] COMMAND [ARGS...]',
  summary: 'run a stdio MCP server as a child and filter its traffic',
  about: [
    "Runs a stdio MCP server as a child: its stdout is encoded on the way to ours, our stdin decoded on the way to it; stderr passes through. The server's command starts at the first argument that is not an option of ours, and every argument from there on is the server's (so -- is optional: wrap node server.js --guard passes --guard to the server).",
    "A line that is not JSON, in either direction, is dropped with a note on stderr (never its content) and the session goes on. A request whose decoded keys collide is answered with JSON-RPC error -32602, not forwarded. Every answer wrap writes itself is encoded like the server's output.",
  ],
  options: {
    guard: {
      text: "block calls whose decoded arguments hold U+FFFD, calls to tools the server does not list and calls whose arguments fail the tool's inputSchema: each is answered with a tool result the model can read (isError: true, the reason, never the value), the reason on stderr too; each request of a batch is checked on its own",
    },
    root: {
      text: 'with a guard: block calls whose path arguments (by name: path, file, dir, source, destination, target, uri...; format uri; any file: URI) resolve outside every DIR (relative paths against the first, symlinks followed); client: the roots the client lists (asked with roots/list, again on list_changed; a call with a path waits for them, and is blocked if the client has none)',
    },
    confirm: {
      text: 'with a guard: ask the user first (elicitation/create naming the tool and the argument names) before a call to tool NAME, or to any tool annotated destructiveHint and not readOnlyHint; no, or no answer within --call-timeout (else 55 s), answers it isError, as does a client without elicitation',
    },
    'call-timeout': {
      text: 'answer a request the server leaves unanswered this long (30s, 5m, 1h; tools/call: isError "no answer from the server within 30 s", others: JSON-RPC error -32001), send the server notifications/cancelled for it and drop its late answer; its progress notifications restart the timer',
    },
    audit: {
      text: 'append a JSON line per blocked, confirmed, declined or timed-out call to FILE (mode 0600; a file others may read or write is refused; written before the answer leaves): time, request (the id as written), tool, decision, rule (unknown-tool, schema, damaged, outside-roots, confirm, timeout) and the argument paths, never their values',
    },
    'max-message-bytes': { text: 'a larger message is dropped with a note on stderr (default: 536870912, 512 MiB)' },
  },
  notes: [
    "Exit status: the child's; if the child died of a signal, wrap raises that signal on itself, unless wrap had passed it on (it got SIGINT, SIGTERM or SIGHUP): then 128 + its number (130, 143, 129). 1 if wrap itself failed (the reason on stderr; it then stops the server: SIGTERM, SIGKILL 3 s later). 127 if the command is not found, 126 if it cannot be started. 2 for a usage error.",
  ],
};
