// The seeded, realistic corpus shared by the benchmarks: what MCP servers for desktops and
// phones return (app lists, window titles, paths), prose in English and Chinese, clean text.
import { pick, type Random, seeded } from './random.ts';

const CLEAN_APPS = [
  'Safari',
  'Google Chrome',
  'Xcode',
  'Visual Studio Code',
  'Slack',
  'Figma',
  'Notion',
  'Spotify',
  'WeChat',
  'Telegram',
  'Microsoft Word',
  'Terminal',
  'Finder',
  'Preview',
  'Zoom',
];
const VENDOR_APPS = [
  'Qwen',
  'DingTalk',
  'Alipay',
  'Taobao',
  'Tmall',
  'Yuque',
  'Lingma',
  'Qoder',
  'Alibaba Cloud',
  'Tongyi Qianwen',
  'ModelScope',
  '钉钉',
  '淘宝',
  '支付宝',
  '通义千问',
];
const WORDS = [
  'the',
  'window',
  'button',
  'click',
  'open',
  'file',
  'error',
  'request',
  'server',
  'list',
  'settings',
  'user',
  'document',
  'project',
  'build',
  'release',
  'network',
  'connection',
  'timeout',
  'value',
  'screen',
  'device',
  'install',
  'update',
  'search',
  'results',
  'message',
  'folder',
  'image',
  'preview',
];
const HANZI =
  '的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产种面而方后多定行学法所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都两体制机当使点从业本去把性好应开它合还因由其些然前外天政四日那社义事平形相全表间样与关各重新线内数正心反你明看原又么利比或但质气第向道命此变条只没结解问意建月公无系军很情者最立代想已通并提直题党程展五果料象员革位入常文总次品式活设及管特件长求老头基资边流路级少图山统接知较将组见计别她手角期根论运农指几九区强放决西被干做必战先回则任取据处理府研质信';
const TERMS_IN_PROSE = ['Qwen', 'DashScope', 'aliyuncs.com', 'Alibaba Cloud', 'dash-scope', 'Tongyi', '通义', '阿里', '百炼'];

function sentence(r: Random, words: number, termRate: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(r() < termRate ? pick(r, TERMS_IN_PROSE) : pick(r, WORDS));
  return out.join(' ') + '.';
}

function chinese(r: Random, chars: number, termRate: number): string {
  let s = '';
  while (s.length < chars) s += r() < termRate ? pick(r, ['通义', '阿里', '千问', '钉钉', '淘宝']) : HANZI[Math.floor(r() * HANZI.length)];
  return s + '。';
}

/** One app entry as a desktop automation server lists it. */
export function appEntry(r: Random, vendorRate = 0.2) {
  const name = r() < vendorRate ? pick(r, VENDOR_APPS) : pick(r, CLEAN_APPS);
  const slug = name.replace(/[^A-Za-z]/g, '') || 'App';
  const vendor = r() < vendorRate ? 'com.alibaba' : pick(r, ['com.apple', 'com.google', 'com.microsoft', 'org.mozilla', 'com.tinyspeck']);
  return {
    name,
    bundleId: `${vendor}.${slug}`,
    path: `/Applications/${name}.app`,
    pid: Math.floor(r() * 90000) + 100,
    windowTitle: `${name} — ${sentence(r, 4, 0.05)}`,
  };
}

/** Mixed text: app lines, titles, paths, English and Chinese prose, with terms. */
export function mixedText(seed: number, bytes: number): string {
  const r = seeded(seed);
  const parts: string[] = [];
  let size = 0;
  while (size < bytes) {
    const k = r();
    const piece =
      k < 0.35
        ? JSON.stringify(appEntry(r))
        : k < 0.6
          ? sentence(r, 12, 0.04)
          : k < 0.8
            ? chinese(r, 40, 0.05)
            : `/Users/dev/Library/Application Support/${pick(r, [...CLEAN_APPS, ...VENDOR_APPS])}/cache/${Math.floor(r() * 1e6)}.db`;
    parts.push(piece);
    size += Buffer.byteLength(piece) + 1;
  }
  return parts.join('\n');
}

/** English and paths with no term at all (checked by the benchmark before timing). */
export function cleanText(seed: number, bytes: number): string {
  const r = seeded(seed);
  let s = '';
  while (s.length < bytes) s += (r() < 0.8 ? sentence(r, 14, 0) : `/Applications/${pick(r, CLEAN_APPS)}.app/Contents/MacOS`) + '\n';
  return s.slice(0, bytes);
}

/** Mostly Chinese prose with CJK terms. */
export function cjkText(seed: number, bytes: number): string {
  const r = seeded(seed);
  const parts: string[] = [];
  for (let size = 0; size < bytes; ) {
    const line = chinese(r, 60, 0.03) + '\n';
    parts.push(line);
    size += Buffer.byteLength(line);
  }
  return parts.join('');
}

/** Many short strings (< 64 characters) as JSON field values are: names, ids, titles. */
export function shortStrings(seed: number, count: number): string[] {
  const r = seeded(seed);
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const app = appEntry(r, 0.1);
    out.push(pick(r, [app.name, app.bundleId, app.path, app.windowTitle.slice(0, 60), String(app.pid), 'ok', 'text']));
  }
  return JSON.parse(JSON.stringify(out)); // flat strings, as they come out of JSON.parse
}

/** A tools/call result listing `count` apps, as text and as structuredContent. */
export function appsListResult(seed: number, count: number) {
  const r = seeded(seed);
  const apps = Array.from({ length: count }, () => appEntry(r));
  return JSON.parse(
    JSON.stringify({
      jsonrpc: '2.0',
      id: 42,
      result: { content: [{ type: 'text', text: `Found ${count} running apps` }], structuredContent: { apps } },
    }),
  );
}

/** A tools/list result: tools with long descriptions and JSON schemas. */
export function toolsListResult(seed: number, count: number) {
  const r = seeded(seed);
  const tools = Array.from({ length: count }, (_, i) => ({
    name: `tool_${i}_${pick(r, WORDS)}`,
    description: Array.from({ length: 6 }, () => sentence(r, 14, 0.02)).join(' '),
    inputSchema: {
      type: 'object',
      properties: {
        app: { type: 'string', description: sentence(r, 10, 0.05) },
        count: { type: 'integer', minimum: 0 },
        path: { type: 'string', description: sentence(r, 8, 0) },
      },
      required: ['app'],
    },
  }));
  return JSON.parse(JSON.stringify({ jsonrpc: '2.0', id: 2, result: { tools } }));
}

/** A screenshot result: megabytes of base64 that must pass untouched, and a caption. */
export function imageResult(seed: number, bytes: number) {
  const r = seeded(seed);
  const raw = new Uint8Array(bytes);
  for (let i = 0; i < bytes; i++) raw[i] = Math.floor(r() * 256);
  const data = Buffer.from(raw).toString('base64');
  return JSON.parse(
    JSON.stringify({
      jsonrpc: '2.0',
      id: 9,
      result: {
        content: [
          { type: 'image', data, mimeType: 'image/png' },
          { type: 'text', text: 'Screenshot of Qwen — 通义千问 window' },
        ],
      },
    }),
  );
}

/** Messages of one kind, as the NDJSON traffic below mixes them. */
export const MESSAGE_KINDS = {
  'app lists': (seed: number) => appsListResult(seed, 40),
  'CJK prose': (seed: number) => ({ jsonrpc: '2.0', id: seed, result: { content: [{ type: 'text', text: cjkText(seed, 4096) }] } }),
  screenshots: (seed: number) => imageResult(seed, 48 * 1024),
  // A file read or a long log: one text of 60 KiB, over the lane's 16 KiB (not in the mixed traffic).
  'file contents (60 KiB)': (seed: number) => ({
    jsonrpc: '2.0',
    id: seed,
    result: { content: [{ type: 'text', text: mixedText(seed, 60 * 1024) }] },
  }),
  'progress notifications': (seed: number) => ({
    jsonrpc: '2.0',
    method: 'notifications/progress',
    params: { progressToken: seed, progress: seed % 100, message: sentence(seeded(seed), 8, 0.1) },
  }),
} as const;

/** About `bytes` of NDJSON, every line a message made by `make`. */
export function ndjsonOf(make: (seed: number) => unknown, bytes: number): Uint8Array {
  const lines: string[] = [];
  for (let seed = 1, size = 0; size < bytes; seed++) {
    const line = JSON.stringify(make(seed));
    lines.push(line);
    size += Buffer.byteLength(line) + 1;
  }
  return new TextEncoder().encode(lines.join('\n') + '\n');
}

/** NDJSON traffic as a server writes it: app lists, CJK prose, screenshots, many small messages. */
export function ndjsonTraffic(seed: number, bytes: number): Uint8Array {
  const r = seeded(seed);
  const kinds = MESSAGE_KINDS;
  let id = 1;
  return ndjsonOf(() => {
    const k = r();
    const make =
      k < 0.25 ? kinds['app lists'] : k < 0.5 ? kinds['CJK prose'] : k < 0.6 ? kinds.screenshots : kinds['progress notifications'];
    const m: Record<string, unknown> = make(Math.floor(r() * 1e6));
    if (make !== kinds['progress notifications']) m.id = id++;
    return m;
  }, bytes);
}

// The second mix: traffic as agents' tool calls make it, many small messages of many short
// fields (ids, names, paths, hosts, states, times, numbers), a term in about one field in twenty.
const FILE_NAMES = ['README.md', 'index.ts', 'config.json', 'build.log', 'notes.txt', 'main.py', 'Cargo.toml', 'photo.png'];
const HOSTS = ['api.github.com', 'registry.npmjs.org', 'dashscope.aliyuncs.com', 'localhost:8080', 'oss.aliyuncs.com', 'example.com'];
const STATES = ['ok', 'pending', 'running', 'done', 'failed', 'skipped'];

/** A short field value, holding a term at about `termRate`. */
function field(r: Random, termRate: number, list: readonly string[]): string {
  return r() < termRate ? pick(r, [...TERMS_IN_PROSE, ...VENDOR_APPS.slice(0, 8)]) : pick(r, list);
}

const isoTime = (r: Random) => new Date(Date.UTC(2026, 0, 1) + Math.floor(r() * 3e10)).toISOString();
const hexId = (r: Random) => Math.floor(r() * 2 ** 32).toString(16);

/** Messages of the second mix, by kind. */
export const KEYED_KINDS = {
  'tools/call requests': (r: Random, id: number) => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: {
      name: pick(r, ['list_files', 'read_file', 'open_app', 'search', 'http_get']),
      arguments: { path: `/Users/dev/${field(r, 0.05, FILE_NAMES)}`, recursive: r() < 0.5, limit: 50, host: field(r, 0.05, HOSTS) },
    },
  }),
  'file listings': (r: Random, id: number) => ({
    jsonrpc: '2.0',
    id,
    result: {
      content: [{ type: 'text', text: `${Math.floor(r() * 20) + 1} entries` }],
      structuredContent: {
        entries: Array.from({ length: 4 + Math.floor(r() * 12) }, () => ({
          id: hexId(r),
          name: field(r, 0.05, FILE_NAMES),
          kind: pick(r, ['file', 'dir', 'link']),
          size: Math.floor(r() * 1e6),
          modified: isoTime(r),
          owner: field(r, 0.03, ['dev', 'root', 'ci']),
          readonly: r() < 0.2,
          tags: [field(r, 0.05, STATES), pick(r, ['src', 'docs', 'tmp'])],
        })),
      },
    },
  }),
  'resource lists': (r: Random, id: number) => ({
    jsonrpc: '2.0',
    id,
    result: {
      resources: Array.from({ length: 3 + Math.floor(r() * 8) }, () => {
        const name = field(r, 0.05, FILE_NAMES);
        return {
          uri: `file:///work/${name}`,
          name,
          mimeType: pick(r, ['text/plain', 'application/json', 'image/png']),
          size: Math.floor(r() * 1e5),
        };
      }),
    },
  }),
  'log notifications': (r: Random) => ({
    jsonrpc: '2.0',
    method: 'notifications/message',
    params: {
      level: pick(r, ['debug', 'info', 'warning']),
      logger: field(r, 0.05, ['http', 'fs', 'auth']),
      data: {
        event: pick(r, ['connect', 'request', 'retry', 'close']),
        host: field(r, 0.05, HOSTS),
        status: 200,
        ms: Math.floor(r() * 900),
      },
    },
  }),
  'short results': (r: Random, id: number) => ({
    jsonrpc: '2.0',
    id,
    result: { content: [{ type: 'text', text: `Opened ${field(r, 0.1, CLEAN_APPS)} (${field(r, 0.05, STATES)})` }], isError: false },
  }),
  errors: (r: Random, id: number) => ({
    jsonrpc: '2.0',
    id,
    error: {
      code: -32602,
      message: `Invalid params: ${pick(r, ['path', 'host', 'limit'])}`,
      data: { field: field(r, 0.05, ['path', 'host']), got: field(r, 0.05, HOSTS) },
    },
  }),
} as const;

/** About `bytes` of NDJSON of the second mix: every kind in turn at random, each message small. */
export function keyedTraffic(seed: number, bytes: number): Uint8Array {
  const r = seeded(seed);
  const kinds = Object.values(KEYED_KINDS);
  let id = 1;
  return ndjsonOf(() => pick(r, kinds)(r, id++), bytes);
}
