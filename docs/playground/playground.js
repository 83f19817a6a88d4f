// The playground's logic: what the codec makes of the input, with the options on the page, shown
// as the output with each token marked (its original on hover), the round trip, the U+FFFD and
// lone-surrogate reports and the time the encoding took. No framework; everything runs here.
import {
  createCodec,
  createDecodeStream,
  createEncodeStream,
  findReplacementBytes,
  findReplacementCharacters,
  formatPath,
} from './codec.js';

const $ = (id) => document.getElementById(id);
const utf8 = new TextEncoder();

function codecOptions() {
  const options = { prefix: $('prefix').value, suffix: $('suffix').value, hexCase: $('hex-case').value, fold: $('fold').value };
  const terms = $('terms').value.trim();
  if (terms) {
    try {
      options.terms = JSON.parse(terms);
    } catch (e) {
      throw new Error(`terms: ${e.message}`);
    }
  }
  return options;
}

async function throughStream(stream, bytes) {
  return new Uint8Array(await new Response(new Blob([bytes]).stream().pipeThrough(stream)).arrayBuffer());
}

/** `f()`'s result and its time per run in ms, over repeated runs (one run of a small input is too quick to time). */
function timed(f) {
  const start = performance.now();
  let result;
  let n = 0;
  do {
    result = f();
    n++;
  } while (performance.now() - start < 20 && n < 10_000);
  return { result, ms: (performance.now() - start) / n };
}

const sameBytes = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

/** Each mode: encode the input, say whether decoding gives it back, and report damage. */
const MODES = {
  async text(input, codec) {
    const { result: output, ms } = timed(() => codec.encodeText(input));
    return { output, ms, roundTrip: codec.decodeText(output) === input, reports: stringReports(findReplacementCharacters(input)) };
  },
  async json(input, codec) {
    const value = JSON.parse(input);
    const { result: encoded, ms } = timed(() => codec.encodeValue(value));
    const roundTrip = JSON.stringify(codec.decodeValue(encoded)) === JSON.stringify(value);
    return { output: JSON.stringify(encoded, null, 2), ms, roundTrip, reports: stringReports(findReplacementCharacters(value)) };
  },
  async ndjson(input, _codec, options) {
    const bytes = utf8.encode(input);
    const start = performance.now();
    const encoded = await throughStream(createEncodeStream({ ...options, framing: 'ndjson' }), bytes);
    const ms = performance.now() - start;
    const decoded = await throughStream(createDecodeStream({ ...options, framing: 'ndjson' }), encoded);
    const found = findReplacementBytes(bytes);
    const reports = found.replacementCharacterCount
      ? [`${found.replacementCharacterCount} U+FFFD, the first at byte ${found.utf8ByteOffset}`]
      : [];
    return { output: new TextDecoder().decode(encoded), ms, roundTrip: sameBytes(decoded, bytes), reports };
  },
};

function stringReports(found) {
  return found.map((r) => {
    const where = `${formatPath(r.path)}${r.location === 'key' ? ' (a key)' : ''}`;
    const lone = r.loneSurrogateCount ? `, ${r.loneSurrogateCount} lone surrogate(s)` : '';
    return `${where}: ${r.replacementCharacterCount - r.loneSurrogateCount} U+FFFD${lone}, the first at character ${r.characterOffset} (UTF-8 byte ${r.utf8ByteOffset})`;
  });
}

const escapeRegExp = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The output as text nodes and <mark>s, one per token, its original as the title. */
function showOutput(output, codec, options) {
  const target = $('output');
  target.replaceChildren();
  const token = new RegExp(`${escapeRegExp(options.prefix)}(?:[0-9a-fA-F]{2})+${escapeRegExp(options.suffix)}`, 'g');
  let at = 0;
  let tokens = 0;
  for (const m of output.matchAll(token)) {
    const original = codec.decodeText(m[0]);
    if (original === m[0]) continue;
    target.append(output.slice(at, m.index));
    const mark = document.createElement('mark');
    mark.textContent = m[0];
    mark.title = original;
    target.append(mark);
    at = m.index + m[0].length;
    tokens++;
  }
  target.append(output.slice(at));
  return tokens;
}

let runs = 0;
async function update() {
  const run = ++runs;
  const status = $('status');
  try {
    const options = codecOptions();
    const codec = createCodec(options);
    const mode = $('mode').value;
    const input = $('input').value;
    const result = await MODES[mode](input, codec, options);
    if (run !== runs) return; // (a newer input is on its way)
    const tokens = showOutput(result.output, codec, options);
    const bytes = utf8.encode(input).length;
    const speed = result.ms > 0 ? `, ${(bytes / 1e6 / (result.ms / 1e3)).toFixed(0)} MB/s` : '';
    $('summary').textContent =
      `${tokens} token(s); round trip: ${result.roundTrip ? 'exact' : 'differs (the input holds tokens of its own, or text decoding changes)'}; ` +
      `encoded ${bytes} bytes in ${result.ms.toFixed(2)} ms${speed}`;
    $('summary').dataset.roundTrip = String(result.roundTrip);
    const list = $('reports');
    list.replaceChildren(
      ...(result.reports.length ? result.reports : ['no U+FFFD, no lone surrogate']).map((text) => {
        const item = document.createElement('li');
        item.textContent = text;
        return item;
      }),
    );
    list.dataset.count = String(result.reports.length);
    status.textContent = '';
  } catch (e) {
    if (run !== runs) return;
    status.textContent = e.message;
  }
}

let timer;
for (const id of ['input', 'mode', 'prefix', 'suffix', 'hex-case', 'fold', 'terms']) {
  $(id).addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(update, 60);
  });
}
update();
