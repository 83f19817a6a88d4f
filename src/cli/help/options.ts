// What each option does, one entry an option: every command's help lists its options from here
// (a command's own file may say it otherwise for that command). Typed over every option name, so
// an option added to args.ts does not build without its help line.
import { AUTH_TOKENS_ENV, type OptionName } from '../args.js';

export interface OptionHelp {
  /** The value's name (enums, whole numbers and durations are named from VALUE_TYPES). */
  arg?: string;
  text: string;
}

export const OPTION_HELP: Record<OptionName, OptionHelp> = {
  framing: { text: 'how messages are framed on stdin and stdout (default: ndjson)' },
  prefix: { arg: 'STRING', text: 'token prefix (default: __mcp_ref_)' },
  suffix: { arg: 'STRING', text: 'token suffix (default: __)' },
  'hex-case': { text: 'hex digits written by encoding (default: lower)' },
  fold: { text: 'how text is matched with terms (default: ascii; nfkc: lookalikes too)' },
  terms: { arg: 'FILE.json', text: 'terms to alias: {"ascii":[...],"exact":[...],"pairs":[[a,b],...]}' },
  'max-message-bytes': { text: 'a larger message is invalid (default: 536870912, 512 MiB)' },
  upstream: { arg: 'URL', text: 'the remote MCP endpoint (required)' },
  port: { text: 'the port to listen on (default: 8080; 0: any free port)' },
  host: { arg: 'ADDRESS', text: 'the address to listen on (default: 127.0.0.1, only this machine)' },
  'session-idle': { text: 'end a session after this long without a request (90s, 10m, 1h; default: 10m)' },
  'max-sessions': { text: 'sessions at once; more get 503 (default: 32)' },
  'auth-token-file': {
    arg: 'FILE',
    text: `require Authorization: Bearer <token>, one of the tokens in FILE (one per line; re-read on SIGHUP); also ${AUTH_TOKENS_ENV} (tokens separated by commas or newlines)`,
  },
  'oauth-issuer': { arg: 'URL', text: 'require JWT access tokens from this issuer (keys from its metadata)' },
  'oauth-audience': { arg: 'ID', text: 'with --oauth-issuer: the aud the tokens must name' },
  'oauth-scope': { arg: 'SCOPE', text: 'with --oauth-issuer: a scope the tokens must hold' },
  'oauth-resource': {
    arg: 'URL',
    text: "this server's URL as clients reach it (default: from the Host header), for the RFC 9728 metadata",
  },
  rate: { arg: 'N[/s]', text: 'requests per second per credential (429 beyond)' },
  'max-sessions-per-client': { text: 'live sessions per credential (429 beyond)' },
  'no-auth': {
    text: `listen beyond loopback without authentication (without it, a --host other than loopback needs --auth-token-file, ${AUTH_TOKENS_ENV} or --oauth-issuer)`,
  },
  'call-timeout': {
    text: 'answer a request the server leaves unanswered this long (30s, 5m, 1h) and send the server notifications/cancelled for it',
  },
  'call-timeout-max': { text: 'how long progress notifications may extend a request in all (default: 10 times --call-timeout)' },
  guard: {
    text: "block calls whose decoded arguments hold U+FFFD, calls to tools the server does not list and calls whose arguments fail the tool's inputSchema: each is answered with a tool result (isError: true, the reason, never the value)",
  },
  'guard-tools-only': { text: 'as --guard, without the U+FFFD check' },
  root: {
    arg: 'DIR|client',
    text: 'with a guard: block calls whose path arguments resolve outside DIR (symlinks followed); client: the roots the client lists',
  },
  confirm: {
    arg: 'NAME|destructive',
    text: 'with a guard: ask the user (elicitation/create) before a call to tool NAME, or to any tool annotated destructiveHint and not readOnlyHint',
  },
  audit: {
    arg: 'FILE',
    text: 'append a JSON line per blocked, confirmed, declined or timed-out call to FILE (mode 0600): time, request id, tool, decision, rule and the argument paths, never their values',
  },
  'audit-all': { text: 'with --audit: log allowed calls too' },
  header: { arg: "'Name: value'", text: "sent with every request, e.g. --header 'Authorization: Bearer TOKEN'" },
  'allowed-host': { arg: 'NAME[:PORT]', text: 'a Host header accepted (default: localhost, 127.0.0.1, [::1]); others get 403' },
  'allowed-origin': { arg: 'ORIGIN', text: 'a browser Origin accepted (default: origins on localhost, 127.0.0.1, [::1]); others get 403' },
  'upstream-timeout': {
    text: "how long the upstream may keep silent: before a response's head (then 502), and inside its body (then it ends there); default: 300s, as fetch",
  },
  'upstream-header': {
    arg: "'Name: value'",
    text: "set on every request sent upstream; with authentication on, the client's own Authorization is never forwarded",
  },
  config: {
    arg: 'FILE.json',
    text: 'options from a JSON object keyed by their names; the command line replaces them (docs/CLI.md)',
  },
  help: { text: 'this text' },
};

/** --root and --audit where the server is remote (proxy, connect): its own paths, checked lexically. */
export const REMOTE_GUARD_HELP = {
  root: {
    arg: 'DIR',
    text: "with a guard: block calls whose path arguments fall outside DIR: absolute, the server's own paths, checked lexically (symlinks there are not seen)",
  },
  audit: {
    text: 'append a JSON line per blocked or timed-out call to FILE, with its session, as wrap (mode 0600; never argument values)',
  },
} as const satisfies Record<string, Partial<OptionHelp>>;
