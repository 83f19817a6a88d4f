import { CONNECT_HELP } from './connect.js';
import { PROXY_HELP } from './proxy.js';
import { SERVE_HELP } from './serve.js';

export const HELP = `Usage: mcp-payload-codec <command> [options]

Commands:
  wrap [options] [--] <server command> [args...]
        Run a stdio MCP server as a child and filter its traffic: its stdout is encoded on the
        way to ours, our stdin decoded on the way to it; stderr passes through. The server
        command starts at the first argument that is not an option of ours, and every argument
        from there on is the server's (so -- is optional: wrap node server.js --guard passes
        --guard to the server). A line that is not JSON, in either direction, is dropped with a
        note on stderr (never its content) and the session goes on. A request whose decoded keys
        collide is answered with JSON-RPC error -32602, not forwarded. Every answer the proxy
        writes itself is encoded like the server's output.
        --guard blocks calls whose decoded arguments hold U+FFFD, calls to tools the server
        does not list and calls whose arguments fail the tool's inputSchema; each is answered
        with a tool result the model can read (isError: true, the reason as its text, never
        the value), the reason on stderr too. Each request of a batch is checked on its own.
        --guard-tools-only does the tool checks only.
        --root DIR (repeatable, with a guard) also blocks calls whose path arguments (by name:
        path, file, dir, source, destination, target, uri...; format uri; any file: URI) resolve
        outside every DIR: relative paths against the first, symlinks followed. --root client
        takes the roots the client lists (it is asked roots/list, again on list_changed; a call
        with a path waits for them, and is blocked if the client has none).
        --confirm NAME (repeatable; destructive: tools annotated destructiveHint and not
        readOnlyHint) asks the user first, with an elicitation/create naming the tool and the
        argument names: yes lets the call go on; no, or no answer within --call-timeout (else
        55 s), answers it isError; a client without elicitation cannot confirm (isError).
        --call-timeout DURATION answers a request the server leaves unanswered that long
        (tools/call: isError "no answer from the server within 30 s"; others: JSON-RPC error
        -32001), sends the server notifications/cancelled for it and drops its late answer.
        Progress notifications for it restart its timer, up to --call-timeout-max in all.
        --audit FILE appends one JSON line per blocked, confirmed, declined or timed-out call
        to FILE (mode 0600; one others may read or write is refused; written before the answer
        leaves): time, request (the id as written), tool, decision, rule (unknown-tool, schema,
        damaged, outside-roots, confirm, timeout) and the argument paths, never their values.
        --audit-all logs allowed calls too. serve, proxy and connect take --root DIR and --audit
        too (proxy and connect: the server is elsewhere, so each DIR must be absolute and the
        check is lexical: symlinks there are not seen; entries hold the Mcp-Session-Id as
        session).
        Exit status: the child's exit code; if the child died of a signal, wrap raises that
        signal on itself, unless wrap had passed that signal on (it got SIGINT, SIGTERM or
        SIGHUP): then 128 + its number (130, 143, 129). 1 if wrap itself failed (reason on
        stderr; it then stops the server: SIGTERM, SIGKILL 3 s later), whatever the child does.
        127 if the command is not found, 126 if it cannot be started.
  encode [options]
        stdin to stdout, terms aliased. Input that is not JSON ends it (exit code 1).
  decode [options]
        stdin to stdout, tokens restored. Input that is not JSON ends it (exit code 1).
  scan [file]
        Report U+FFFD per NDJSON message and parameter (never the content; a damaged key is
        named by its position). Exit code 1 if any is found, 2 if a line is not JSON.
${PROXY_HELP}${CONNECT_HELP}${SERVE_HELP}
Options (each one always takes a value, or never does; the codec options, --max-message-bytes
and the guards work with every command they make sense for):
  --framing ndjson|content-length|sse   encode, decode (default: ndjson; wrap speaks ndjson)
  --prefix STRING                       token prefix (default: __mcp_ref_)
  --suffix STRING                       token suffix (default: __)
  --hex-case lower|upper                hex digits written by encoding (default: lower)
  --fold ascii|nfkc                     how text is compared with terms (default: ascii;
                                        nfkc also catches lookalikes)
  --terms FILE.json                     terms to alias:
                                        {"ascii":[...],"exact":[...],"pairs":[[a,b],...]}
  --max-message-bytes N                 a larger message is invalid: encode and decode end,
                                        wrap drops it with a note; proxy, connect and serve:
                                        as above (default: 536870912, 512 MiB)
  --guard                               wrap, proxy, connect, serve: check tool calls (wrap,
                                        above)
  --guard-tools-only                    the same, tool names and schemas only
  --root DIR|client                     wrap, serve, proxy, connect, with a guard: confine
                                        path arguments to DIR (repeatable; wrap, above; proxy
                                        and connect: absolute, checked lexically); wrap,
                                        serve: client, the roots the client lists
  --confirm NAME|destructive            wrap, serve, with a guard: ask the user before such
                                        calls (repeatable; wrap, above)
  --call-timeout DURATION               wrap, serve, proxy, connect: answer requests the
                                        server leaves unanswered this long (30s, 5m, 1h;
                                        wrap, above)
  --call-timeout-max DURATION           the same: how long progress may extend a request in
                                        all (default: 10 times --call-timeout)
  --audit FILE                          wrap, serve, proxy, connect: append a JSON line per
                                        decision on a call (with its session over HTTP)
  --audit-all                           with --audit: log allowed calls too
  --config FILE.json                    every command: options from a JSON object keyed by
                                        their names ({"guard": true, "root": ["src"], "port":
                                        8080, "terms": {...} or a file}); paths in it are
                                        relative to its folder (not proxy and connect roots:
                                        the server's, as written). The command line replaces
                                        a value or a whole list of the file's; a flag set in
                                        either is set (--guard and --guard-tools-only replace
                                        each other). Not in it: --header, --upstream-header
                                        (they carry credentials). Its JSON Schema, for
                                        editors: mcp-payload-codec/schema/config.schema.json
  -h, --help                            this text

Usage errors exit with code 2.
`;
