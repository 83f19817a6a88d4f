// bench/chart.svg: throughput per case, ours beside the baseline, on a log scale. Plain SVG, so
// any browser or image viewer shows it.
import { writeFileSync } from 'node:fs';
import type { CaseResult } from './report.ts';

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function writeChart(file: string, results: readonly CaseResult[]): void {
  const rows = results.filter((r) => r.ours);
  const left = 430;
  const width = 420;
  const rowH = 34;
  const top = 40;
  const min = 10;
  const max = 100_000;
  const x = (mbps: number) => (width * Math.log10(Math.max(min, Math.min(max, mbps)) / min)) / Math.log10(max / min);
  const parts: string[] = [];
  parts.push(`<text x="10" y="22" font-size="15" font-weight="bold">mcp-payload-codec throughput, MB/s (log scale); blue: ours, grey: baseline</text>`);
  for (let d = min; d <= max; d *= 10) {
    const gx = left + x(d);
    parts.push(`<line x1="${gx}" y1="${top - 6}" x2="${gx}" y2="${top + rows.length * rowH}" stroke="#ddd"/>`, `<text x="${gx}" y="${top - 10}" font-size="10" text-anchor="middle">${d}</text>`);
  }
  rows.forEach((r, i) => {
    const y = top + i * rowH;
    parts.push(`<text x="${left - 8}" y="${y + 14}" font-size="11" text-anchor="end">${esc(`${r.group}: ${r.name}`)}</text>`);
    parts.push(`<rect x="${left}" y="${y + 3}" width="${x(r.ours!.mbps).toFixed(1)}" height="12" fill="#2f6fd6"/>`);
    parts.push(`<text x="${left + x(r.ours!.mbps) + 4}" y="${y + 13}" font-size="10">${r.ours!.mbps.toFixed(0)}${r.ratio ? ` (${r.ratio.toFixed(1)}x)` : ''}</text>`);
    if (r.baseline) {
      parts.push(`<rect x="${left}" y="${y + 17}" width="${x(r.baseline.mbps).toFixed(1)}" height="10" fill="#aaa"/>`);
      parts.push(`<text x="${left + x(r.baseline.mbps) + 4}" y="${y + 26}" font-size="9" fill="#555">${esc(r.baselineName ?? '')} ${r.baseline.mbps.toFixed(0)}</text>`);
    }
  });
  const h = top + rows.length * rowH + 10;
  writeFileSync(file, `<svg xmlns="http://www.w3.org/2000/svg" width="${left + width + 200}" height="${h}" font-family="sans-serif">\n<rect width="100%" height="100%" fill="white"/>\n${parts.join('\n')}\n</svg>\n`);
}
