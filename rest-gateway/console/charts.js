// Charts drawn in the page (SVG, no library), at the width they are shown and drawn again when
// that width changes. A colour means one thing on every chart: green is success, red is failure.

import { h, s, main } from './dom.js';

export const COLOURS = {
  delivered: '#1a7f37', succeeded: '#1a7f37',
  failed: '#b42318',
  pending: '#8c959f',
  authentication: '#6e40c9', utility: '#0a66c2', marketing: '#bc4c00', service: '#57606a',
  received: '#1b7c83',
  follows: '#1b7c83', unfollows: '#8c959f',
  opted_in: '#bc4c00', active: '#0a66c2',
};

// Charts on the page and how to draw each again.
const drawn = new Set();
let resizeTimer = null;
let lastWidth = null;

window.addEventListener('resize', () => {
  if (resizeTimer) clearTimeout(resizeTimer);
  resizeTimer = setTimeout(() => {
    resizeTimer = null;
    const width = chartWidth();
    if (width === lastWidth) return;
    lastWidth = width;
    for (const chart of [...drawn]) {
      if (!chart.figure.isConnected) { drawn.delete(chart); continue; }
      chart.figure.replaceChildren(...chart.draw(width));
    }
  }, 100);
});

// A figure whose content `draw(width)` makes, drawn again at each new width.
function responsive(cls, draw) {
  const width = chartWidth();
  lastWidth = width;
  const figure = h('figure', { class: cls }, ...draw(width));
  drawn.add({ figure, draw });
  return figure;
}

// At most 560 px, never scaled down: the text stays 12 px on a phone.
function chartWidth() {
  return Math.max(260, Math.min(560, Math.floor(main.clientWidth || 560) - 4));
}

/** Horizontal bars: `entries` are `[label, value, colour]`. */
export function barChart(title, entries) {
  return responsive('bar-chart', (width) => {
    const max = Math.max(1, ...entries.map(([, v]) => v));
    const rowH = 28;
    const labelW = Math.min(130, Math.round(width * 0.32));
    const svg = s('svg', { class: 'chart', width, height: entries.length * rowH + 10, viewBox: `0 0 ${width} ${entries.length * rowH + 10}`, role: 'img', 'aria-label': `${title}: ${entries.map(([k, v]) => `${k} ${v}`).join(', ')}` });
    entries.forEach(([label, value, colour], i) => {
      const y = i * rowH + 5;
      const w = Math.round(((width - labelW - 60) * value) / max);
      svg.append(
        s('text', { x: 0, y: y + 17 }, label),
        s('rect', { x: labelW, y, width: Math.max(w, 1), height: rowH - 8, fill: colour, rx: 3, 'data-series': label }),
        s('text', { x: labelW + w + 6, y: y + 17 }, String(value)),
      );
    });
    return [h('figcaption', {}, h('strong', {}, title)), svg];
  });
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
function shortDate(date) {
  const [, m, d] = date.split('-');
  return `${MONTHS[Number(m) - 1]} ${Number(d)}`;
}

/** One column per day (oldest left), the series (`{label, colour, value(day)}`) stacked. */
export function dayChart(title, days, series) {
  return responsive('day-chart', (width) => {
    const height = 170;
    const left = 36;
    const bottom = 22;
    const top = 8;
    const plotH = height - top - bottom;
    const totals = days.map((d) => series.reduce((sum, one) => sum + one.value(d), 0));
    const max = Math.max(1, ...totals);
    const step = (width - left) / Math.max(1, days.length);
    const barW = Math.max(2, Math.floor(step * 0.7));
    const sums = series.map((one) => `${one.label} ${days.reduce((sum, d) => sum + one.value(d), 0)}`);
    const first = days[0] ? shortDate(days[0].date) : '';
    const last = days.length ? shortDate(days[days.length - 1].date) : '';
    const svg = s('svg', { class: 'chart days', width, height, viewBox: `0 0 ${width} ${height}`, role: 'img',
      'aria-label': `${title}, ${first} to ${last}: ${sums.join(', ')}; at most ${Math.max(0, ...totals)} a day` });
    svg.append(
      s('line', { x1: left, y1: top + plotH, x2: width, y2: top + plotH, stroke: '#d0d7de' }),
      s('text', { x: left - 6, y: top + 10, 'text-anchor': 'end' }, String(max)),
      s('text', { x: left - 6, y: top + plotH, 'text-anchor': 'end' }, '0'),
    );
    // A date under the first column, about every 90 px after it, and under the last one.
    const every = Math.max(1, Math.ceil(90 / step));
    const lastX = left + (days.length - 1) * step + step / 2;
    days.forEach((d, i) => {
      const x = left + i * step + (step - barW) / 2;
      let y = top + plotH;
      series.forEach((one) => {
        const value = one.value(d);
        if (!value) return;
        const barH = Math.max(1, Math.round((plotH * value) / max));
        y -= barH;
        svg.append(s('rect', { x, y, width: barW, height: barH, fill: one.colour, 'data-series': one.label },
          s('title', {}, `${shortDate(d.date)}: ${value} ${one.label}`)));
      });
      const labelX = left + i * step;
      if (i === days.length - 1) {
        svg.append(s('text', { x: Math.min(width - 1, lastX + 12), y: height - 6, 'text-anchor': 'end' }, shortDate(d.date)));
      } else if (i % every === 0 && labelX + 50 < lastX - 40) {
        svg.append(s('text', { x: labelX, y: height - 6 }, shortDate(d.date)));
      }
    });
    const legend = h('ul', { class: 'legend' }, series.map((one) => h('li', {},
      s('svg', { class: 'swatch', width: 12, height: 12, 'aria-hidden': 'true' },
        s('rect', { width: 12, height: 12, rx: 2, fill: one.colour, 'data-series': one.label })), one.label)));
    return [h('figcaption', {}, h('strong', {}, title)), svg, legend];
  });
}
