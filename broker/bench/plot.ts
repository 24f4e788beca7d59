// A small SVG line chart (no dependencies): latency percentiles against offered load, both axes
// logarithmic, one line per percentile, achieved throughput noted under each point.

export interface SweepPoint {
  offered: number;
  achieved: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  p999Ms: number;
}

const SERIES: { key: keyof SweepPoint; label: string; color: string }[] = [
  { key: 'p50Ms', label: 'p50', color: '#1b9e77' },
  { key: 'p95Ms', label: 'p95', color: '#7570b3' },
  { key: 'p99Ms', label: 'p99', color: '#d95f02' },
  { key: 'p999Ms', label: 'p99.9', color: '#e7298a' },
];

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

export function fmtRate(n: number): string {
  return n >= 1_000_000
    ? `${+(n / 1_000_000).toFixed(1)}M`
    : n >= 1000
      ? `${+(n / 1000).toFixed(1)}k`
      : `${Math.round(n)}`;
}

/** Powers of ten (and 2, 5 between) covering [lo, hi]. */
function ticks(lo: number, hi: number): number[] {
  const out: number[] = [];
  for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) {
    for (const m of [1, 2, 5]) {
      const v = m * 10 ** e;
      if (v >= lo * 0.999 && v <= hi * 1.001) out.push(v);
    }
  }
  return out;
}

export function latencyChart(points: readonly SweepPoint[], title: string, subtitle = ''): string {
  const W = 760;
  const H = 440;
  const m = { left: 70, right: 110, top: 56, bottom: 70 };
  const pw = W - m.left - m.right;
  const ph = H - m.top - m.bottom;
  const xs = points.map((p) => p.offered);
  const ys = points.flatMap((p) => SERIES.map((s) => Math.max(0.01, p[s.key] as number)));
  const xLo = Math.min(...xs) / 1.3;
  const xHi = Math.max(...xs) * 1.3;
  const yLo = 10 ** Math.floor(Math.log10(Math.min(...ys)));
  const yHi = 10 ** Math.ceil(Math.log10(Math.max(...ys)));
  const x = (v: number) => m.left + ((Math.log10(v) - Math.log10(xLo)) / (Math.log10(xHi) - Math.log10(xLo))) * pw;
  const y = (v: number) =>
    m.top + ph - ((Math.log10(Math.max(v, yLo)) - Math.log10(yLo)) / (Math.log10(yHi) - Math.log10(yLo))) * ph;
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
  );
  out.push(`<rect width="${W}" height="${H}" fill="#fff"/>`);
  out.push(`<text x="${W / 2}" y="22" text-anchor="middle" font-size="15" font-weight="bold">${esc(title)}</text>`);
  if (subtitle) out.push(`<text x="${W / 2}" y="40" text-anchor="middle" fill="#555">${esc(subtitle)}</text>`);
  for (const t of ticks(yLo, yHi)) {
    out.push(
      `<line x1="${m.left}" x2="${m.left + pw}" y1="${y(t).toFixed(1)}" y2="${y(t).toFixed(1)}" stroke="#e5e5e5"/>`,
    );
    out.push(`<text x="${m.left - 6}" y="${(y(t) + 4).toFixed(1)}" text-anchor="end">${t}</text>`);
  }
  for (const p of points) {
    out.push(
      `<line x1="${x(p.offered).toFixed(1)}" x2="${x(p.offered).toFixed(1)}" y1="${m.top}" y2="${m.top + ph}" stroke="#f0f0f0"/>`,
    );
    out.push(
      `<text x="${x(p.offered).toFixed(1)}" y="${m.top + ph + 16}" text-anchor="middle">${fmtRate(p.offered)}</text>`,
    );
    out.push(
      `<text x="${x(p.offered).toFixed(1)}" y="${m.top + ph + 30}" text-anchor="middle" fill="#777" font-size="10">${fmtRate(p.achieved)}</text>`,
    );
  }
  out.push(`<rect x="${m.left}" y="${m.top}" width="${pw}" height="${ph}" fill="none" stroke="#333"/>`);
  out.push(
    `<text x="${m.left + pw / 2}" y="${H - 18}" text-anchor="middle">offered load, records/s of 1 KiB (grey: achieved)</text>`,
  );
  out.push(
    `<text transform="translate(18 ${m.top + ph / 2}) rotate(-90)" text-anchor="middle">latency, ms (log)</text>`,
  );
  SERIES.forEach((s, i) => {
    const path = points
      .map((p, j) => `${j === 0 ? 'M' : 'L'}${x(p.offered).toFixed(1)},${y(p[s.key] as number).toFixed(1)}`)
      .join(' ');
    out.push(`<path d="${path}" fill="none" stroke="${s.color}" stroke-width="2"/>`);
    for (const p of points)
      out.push(
        `<circle cx="${x(p.offered).toFixed(1)}" cy="${y(p[s.key] as number).toFixed(1)}" r="3" fill="${s.color}"/>`,
      );
    const ly = m.top + 14 + i * 18;
    out.push(
      `<line x1="${m.left + pw + 14}" x2="${m.left + pw + 34}" y1="${ly - 4}" y2="${ly - 4}" stroke="${s.color}" stroke-width="2"/>`,
    );
    out.push(`<text x="${m.left + pw + 40}" y="${ly}">${s.label}</text>`);
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
