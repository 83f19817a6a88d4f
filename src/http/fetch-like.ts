// What the HTTP pieces call to reach a server: globalThis.fetch, or one the caller gives.
export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;
