type ChartBar = {
  readonly label: string;
  readonly value: number;
  /** Shown after the value, e.g. `1.00x FLOOR`. */
  readonly note?: string;
  readonly highlight?: boolean;
};
type ChartPanel = {
  readonly title: string;
  readonly unit: string;
  readonly bars: readonly ChartBar[];
};

// Room for the longest label on the left and the longest value note on the right.
const width = 900;
const labelWidth = 250;
const barArea = 390;
const barHeight = 20;
const gap = 8;
const panelGap = 28;
const titleHeight = 24;

const escapeXml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

const format = (value: number) =>
  value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2);

/** A plain horizontal bar chart, one panel per figure, readable on GitHub in light and dark themes. */
export function renderChart(title: string, subtitle: string, panels: readonly ChartPanel[]) {
  const parts: string[] = [];
  let y = 68;
  for (const panel of panels) {
    const max = Math.max(...panel.bars.map((bar) => bar.value), Number.MIN_VALUE);
    parts.push(
      `<text x="16" y="${y}" class="panel">${escapeXml(panel.title)} (${escapeXml(panel.unit)})</text>`,
    );
    y += titleHeight - 12;
    for (const bar of panel.bars) {
      const length = Math.max(1, (bar.value / max) * barArea);
      const fill = bar.highlight ? '#2f855a' : '#8a94a6';
      const note = bar.note ? `  ${bar.note}` : '';
      parts.push(
        `<text x="${labelWidth - 8}" y="${y + 15}" class="label" text-anchor="end">${escapeXml(bar.label)}</text>`,
        `<rect x="${labelWidth}" y="${y}" width="${length.toFixed(1)}" height="${barHeight}" rx="3" fill="${fill}"/>`,
        `<text x="${(labelWidth + length + 6).toFixed(1)}" y="${y + 15}" class="value">${format(bar.value)} ${escapeXml(panel.unit)}${escapeXml(note)}</text>`,
      );
      y += barHeight + gap;
    }
    y += panelGap;
  }
  const height = y - panelGap + 16;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${escapeXml(title)}" font-family="system-ui, -apple-system, Segoe UI, sans-serif">`,
    `<title>${escapeXml(title)}</title>`,
    '<style>text{fill:#444}.title{font-size:16px;font-weight:600}.sub{font-size:11px;fill:#777}.panel{font-size:13px;font-weight:600}.label,.value{font-size:12px}@media (prefers-color-scheme: dark){text{fill:#ccc}.sub{fill:#999}}</style>',
    `<text x="16" y="24" class="title">${escapeXml(title)}</text>`,
    `<text x="16" y="40" class="sub">${escapeXml(subtitle)}</text>`,
    ...parts,
    '</svg>',
    '',
  ].join('\n');
}
