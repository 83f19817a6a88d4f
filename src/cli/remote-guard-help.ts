// The help lines of the guard options proxy and connect share (the server is elsewhere: roots
// are its own absolute paths, checked lexically).
export const REMOTE_GUARD_HELP = `    --guard, --guard-tools-only          check tool calls as wrap does (below)
    --root DIR                           with a guard: confine path arguments to DIR
                                         (repeatable; absolute, the server's own paths, checked
                                         lexically: symlinks there are not seen)
    --audit FILE, --audit-all            with a guard: a JSON line per blocked (--audit-all:
                                         and allowed) call, with its session, as wrap (below)
`;
