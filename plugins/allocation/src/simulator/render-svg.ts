import type { SimulationReport } from './simulation-types';

const COLORS = ['#d62728', '#1f77b4', '#ff7f0e', '#2ca02c', '#9467bd', '#8c564b', '#e377c2', '#17becf'];

const escapeXml = (text: string): string => text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * A chart of queues moved per membership change divided by the lower bound (1.0 = only the unavoidable moves),
 * against group size on a log scale: one panel per queue count, one line per strategy; the legend gives each
 * strategy's worst balance (largest difference between two members' shares).
 */
export function renderSvg(report: SimulationReport): string {
  const queueCounts = [...new Set(report.scenarios.map((s) => s.queues))];
  const strategies = [...new Set(report.scenarios.map((s) => s.strategy))];
  const sizes = [...new Set(report.scenarios.map((s) => s.members))].sort((a, b) => a - b);
  const ratioOf = (s: (typeof report.scenarios)[number]) =>
    s.moved.lowerBoundMean > 0 ? s.moved.mean / s.moved.lowerBoundMean : undefined;
  const maxRatio = Math.max(2, ...report.scenarios.map((s) => ratioOf(s) ?? 0));
  // Log scale: the interesting differences sit between 1x and 2x, the worst strategies reach 10x and more.
  const ticks = [1, 1.25, 1.5, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64].filter(
    (t, i, all) => t <= maxRatio || all[i - 1]! < maxRatio,
  );
  const yMax = ticks[ticks.length - 1]!;
  const spread = (name: string) =>
    Math.max(...report.scenarios.filter((s) => s.strategy === name).map((s) => s.balance.maxMinusMin));
  const panelW = 420;
  const panelH = 260;
  const margin = { left: 56, right: 16, top: 36, bottom: 44 };
  const columns = Math.min(2, queueCounts.length);
  const rows = Math.ceil(queueCounts.length / columns);
  const width = columns * (panelW + margin.left + margin.right);
  const legendH = 44;
  const height = 50 + legendH + rows * (panelH + margin.top + margin.bottom);
  const title = `Queues moved per join or leave, relative to the unavoidable minimum (seed ${report.seed})`;
  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="Helvetica, Arial, sans-serif" font-size="12">`,
  );
  // The accessible name of the chart (screen readers and tooltips read it; the heading below is only drawn text).
  parts.push(`<title>${escapeXml(title)}</title>`);
  parts.push(`<rect width="100%" height="100%" fill="#ffffff"/>`);
  parts.push(
    `<text x="${width / 2}" y="24" text-anchor="middle" font-size="16" font-weight="bold">${escapeXml(title)}</text>`,
  );
  const legendW = width / Math.max(1, strategies.length);
  strategies.forEach((name, i) => {
    const x = 20 + i * legendW;
    parts.push(
      `<line x1="${x}" y1="52" x2="${x + 24}" y2="52" stroke="${COLORS[i % COLORS.length]}" stroke-width="3"/>`,
    );
    parts.push(`<text x="${x + 30}" y="56">${escapeXml(name)}</text>`);
    parts.push(`<text x="${x + 30}" y="72" fill="#555">shares differ by up to ${spread(name)}</text>`);
  });
  queueCounts.forEach((queues, p) => {
    const ox = (p % columns) * (panelW + margin.left + margin.right) + margin.left;
    const oy = 50 + legendH + Math.floor(p / columns) * (panelH + margin.top + margin.bottom) + margin.top;
    const x = (size: number) => ox + ((size - sizes[0]!) / Math.max(1, sizes[sizes.length - 1]! - sizes[0]!)) * panelW;
    const y = (ratio: number) => oy + panelH - (Math.log(ratio) / Math.log(yMax)) * panelH;
    const brokers = report.scenarios.find((s) => s.queues === queues)?.brokers ?? 0;
    parts.push(
      `<text x="${ox + panelW / 2}" y="${oy - 12}" text-anchor="middle" font-weight="bold">${queues} queues on ${brokers} brokers</text>`,
    );
    for (const r of ticks) {
      parts.push(
        `<line x1="${ox}" y1="${y(r)}" x2="${ox + panelW}" y2="${y(r)}" stroke="${r === 1 ? '#444' : '#ddd'}" ${r === 1 ? 'stroke-dasharray="6 4"' : ''}/>`,
      );
      parts.push(`<text x="${ox - 8}" y="${y(r) + 4}" text-anchor="end">${r}x</text>`);
    }
    for (const size of sizes) {
      parts.push(`<line x1="${x(size)}" y1="${oy + panelH}" x2="${x(size)}" y2="${oy + panelH + 5}" stroke="#444"/>`);
      parts.push(`<text x="${x(size)}" y="${oy + panelH + 18}" text-anchor="middle">${size}</text>`);
    }
    parts.push(`<rect x="${ox}" y="${oy}" width="${panelW}" height="${panelH}" fill="none" stroke="#444"/>`);
    parts.push(
      `<text x="${ox + panelW / 2}" y="${oy + panelH + 36}" text-anchor="middle">group size before the change</text>`,
    );
    parts.push(
      `<text transform="translate(${ox - 40} ${oy + panelH / 2}) rotate(-90)" text-anchor="middle">moved / lower bound (log scale)</text>`,
    );
    strategies.forEach((name, i) => {
      const points = report.scenarios
        .filter((s) => s.queues === queues && s.strategy === name && ratioOf(s) !== undefined)
        .map((s) => `${x(s.members).toFixed(1)},${y(Math.max(1, ratioOf(s)!)).toFixed(1)}`);
      if (points.length > 0)
        parts.push(
          `<polyline fill="none" stroke="${COLORS[i % COLORS.length]}" stroke-width="2.5" points="${points.join(' ')}"><title>${escapeXml(name)}</title></polyline>`,
        );
    });
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
