// The chart (SVG, so any browser or image viewer shows it). It leads with what the targets are
// about: each case's speed-up over its baseline beside its target; then the throughput of the
// headline rows against the engine's own floors (JSON.parse, TextDecoder, Buffer.indexOf) drawn
// as reference lines; then the targets that are not speeds (latency, start, size, memory).
import { writeFileSync } from 'node:fs';
import { type CaseResult, environment, num } from './report.ts';

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const clip = (s: string, n = 74) => (s.length > n ? s.slice(0, n - 1) + '…' : s);
const COLOR = { met: '#2e8b57', missed: '#d23f3f', none: '#8fa9cc', target: '#111', floor: '#c77700', grid: '#e3e3e3' };
const LEFT = 470;
const PLOT = 430;
const ROW = 22;

/** A log axis from lo to hi onto [0, PLOT]. */
const logAxis = (lo: number, hi: number) => (v: number) => (PLOT * Math.log10(Math.max(lo, Math.min(hi, v)) / lo)) / Math.log10(hi / lo);
/** Judged by the panel's own target: a row can meet its ratio and miss its MB/s. */
const color = (value: number, target: number | undefined) =>
  target === undefined ? COLOR.none : value >= target ? COLOR.met : COLOR.missed;
const label = (r: CaseResult) => esc(clip(`${r.group}: ${r.name}`));

export function writeChart(file: string, results: readonly CaseResult[]): void {
  const out: string[] = [];
  let y = 24;
  const env = environment();
  out.push(`<text x="10" y="${y}" font-size="16" font-weight="bold">mcp-payload-codec against its baselines and targets</text>`);
  y += 18;
  out.push(
    `<text x="10" y="${y}" font-size="11" fill="#555">${esc(`${env.date}, ${env.cpu} (${env.cores} cores), Node ${env.node}. Black tick: the target; green: met, red: NOT met (each panel judges its own part of a target), blue: no target.`)}</text>`,
  );
  y += 18;

  // 1. Speed-up over the baseline: bars grow from 1x (the baseline's speed), left when slower.
  const ratioRows = results.filter((r) => r.ratio !== undefined);
  const ordered = [...ratioRows.filter((r) => r.targetRatio !== undefined), ...ratioRows.filter((r) => r.targetRatio === undefined)];
  const rx = logAxis(0.1, 100);
  y = heading(out, y + 10, 'Speed-up over the baseline (ours / baseline, log scale), targeted cases first');
  y = axis(out, y, rx, [0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 50, 100], (v) => `${v}x`, ordered.length);
  ordered.forEach((r, i) => {
    const ry = y + i * ROW;
    const x0 = LEFT + rx(1);
    const x1 = LEFT + rx(r.ratio!);
    const targeted = r.targetRatio !== undefined;
    out.push(
      `<text x="${LEFT - 8}" y="${ry + 14}" font-size="11" text-anchor="end"${targeted ? ' font-weight="bold"' : ' fill="#444"'}>${label(r)}</text>`,
    );
    const xt = targeted ? LEFT + rx(r.targetRatio!) : x0;
    out.push(
      `<rect x="${Math.min(x0, x1).toFixed(1)}" y="${ry + 4}" width="${Math.max(1, Math.abs(x1 - x0)).toFixed(1)}" height="13" fill="${color(r.ratio!, r.targetRatio)}"/>`,
    );
    out.push(
      `<text x="${(Math.max(x0, x1, xt) + 5).toFixed(1)}" y="${ry + 14}" font-size="10">${num(r.ratio!)}x${r.baselineName ? ` vs ${esc(r.baselineName)}` : ''}${targeted ? `, target ${r.targetRatio}x` : ''}</text>`,
    );
    if (targeted) tick(out, xt, ry);
  });
  y += ordered.length * ROW;
  out.push(`<line x1="${LEFT + rx(1)}" y1="${y - ordered.length * ROW - 4}" x2="${LEFT + rx(1)}" y2="${y}" stroke="#333"/>`);

  // 2. Throughput of the rows judged in MB/s and of the mixed traffic, against the floors.
  const floors = results.filter((r) => r.group === 'floor' && r.ours?.unit === 'MB/s');
  const speedRows = results.filter(
    (r) => r.group !== 'floor' && r.ours?.unit === 'MB/s' && (r.targetMbps !== undefined || r.name.includes('mixed traffic')),
  );
  if (speedRows.length) {
    const sx = logAxis(10, 100_000);
    y = heading(out, y + 26, 'Throughput, MB/s (log scale); dashed: what the engine itself does with the same bytes');
    // Floor names above the plot, staggered so they do not overlap.
    floors.forEach((f, k) => {
      const fx = LEFT + sx(f.ours!.value);
      out.push(
        `<text x="${fx.toFixed(1)}" y="${y + 10 + k * 12}" font-size="9.5" fill="${COLOR.floor}" text-anchor="${fx > LEFT + PLOT - 120 ? 'end' : 'start'}">${esc(clip(f.name.replace(/ \(8 MiB.*$/, ''), 40))} ${num(f.ours!.value)}</text>`,
      );
    });
    y += floors.length * 12 + 6;
    y = axis(out, y, sx, [10, 100, 1000, 10_000, 100_000], String, speedRows.length);
    speedRows.forEach((r, i) => {
      const ry = y + i * ROW;
      const w = sx(r.ours!.value);
      const xt = r.targetMbps !== undefined ? LEFT + sx(r.targetMbps) : LEFT;
      out.push(
        `<text x="${LEFT - 8}" y="${ry + 14}" font-size="11" text-anchor="end"${r.targetMbps !== undefined ? ' font-weight="bold"' : ''}>${label(r)}</text>`,
      );
      out.push(`<rect x="${LEFT}" y="${ry + 4}" width="${w.toFixed(1)}" height="13" fill="${color(r.ours!.value, r.targetMbps)}"/>`);
      out.push(
        `<text x="${(Math.max(LEFT + w, xt) + 5).toFixed(1)}" y="${ry + 14}" font-size="10">${num(r.ours!.value)} MB/s${r.targetMbps !== undefined ? `, target ${r.targetMbps}` : ''}</text>`,
      );
      if (r.targetMbps !== undefined) tick(out, xt, ry);
    });
    for (const f of floors) {
      const fx = (LEFT + sx(f.ours!.value)).toFixed(1);
      out.push(
        `<line x1="${fx}" y1="${y - 18}" x2="${fx}" y2="${y + speedRows.length * ROW}" stroke="${COLOR.floor}" stroke-dasharray="4 3"/>`,
      );
    }
    y += speedRows.length * ROW;
  }

  // 3. Targets that are not speeds.
  const others = results.filter((r) => !r.ours && r.figure && r.met !== undefined);
  if (others.length) {
    y = heading(out, y + 26, 'Other targets');
    others.forEach((r, i) => {
      const ry = y + i * 18;
      out.push(`<circle cx="16" cy="${ry + 9}" r="5" fill="${r.met ? COLOR.met : COLOR.missed}"/>`);
      out.push(
        `<text x="28" y="${ry + 13}" font-size="11">${esc(`${r.group}: ${r.name}: ${r.figure} (target ${r.target}, ${r.met ? 'met' : 'NOT met'})`)}</text>`,
      );
    });
    y += others.length * 18;
  }
  const width = LEFT + PLOT + 170;
  writeFileSync(
    file,
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${y + 14}" font-family="sans-serif">\n<rect width="100%" height="100%" fill="white"/>\n${out.join('\n')}\n</svg>\n`,
  );
}

function heading(out: string[], y: number, text: string): number {
  out.push(`<text x="10" y="${y}" font-size="13" font-weight="bold">${esc(text)}</text>`);
  return y + 8;
}

/** Grid lines and their labels; returns where the rows start. */
function axis(out: string[], y: number, x: (v: number) => number, ticks: number[], fmt: (v: number) => string, rows: number): number {
  const top = y + 16;
  for (const t of ticks) {
    const gx = (LEFT + x(t)).toFixed(1);
    out.push(
      `<line x1="${gx}" y1="${top - 2}" x2="${gx}" y2="${top + rows * ROW}" stroke="${COLOR.grid}"/>`,
      `<text x="${gx}" y="${top - 5}" font-size="10" text-anchor="middle" fill="#555">${fmt(t)}</text>`,
    );
  }
  return top;
}

function tick(out: string[], x: number, rowY: number): void {
  out.push(
    `<line x1="${x.toFixed(1)}" y1="${rowY + 1}" x2="${x.toFixed(1)}" y2="${rowY + 20}" stroke="${COLOR.target}" stroke-width="2.5"/>`,
  );
}
