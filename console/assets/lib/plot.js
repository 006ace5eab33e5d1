// @ts-check
/* A campaign's plots (uPlot, served from /app/assets/uplot.js). */
import { h } from './dom.js';

/** Cumulative series over the timeline's buckets: uPlot data [[x…], [y…]…]. */
export function cumulative(points, keys) {
  const xs = points.map((p) => new Date(p.at).getTime() / 1000);
  return [xs, ...keys.map((k) => points.reduce((acc, p, i) => (acc.push((i ? acc[i - 1] : 0) + p[k]), acc), []))];
}

export function plot(id, title, series, colors) {
  const holder = h('figure', { class: 'plot', id, 'aria-label': title }, h('figcaption', {}, title));
  const empty = h('p', { class: 'muted' }, 'Nothing yet.');
  holder.append(empty);
  return {
    el: holder,
    update(data) {
      empty.hidden = data[0].length > 0;
      holder.dataset.points = String(data[0].length);
      if (!data[0].length || !window.uPlot) return;
      const width = Math.max(260, holder.clientWidth - 16);
      if (!holder.uplot) {
        holder.uplot = new window.uPlot(
          {
            width,
            height: 220,
            scales: { x: { time: true } },
            series: [{}, ...series.map((label, i) => ({ label, stroke: colors[i], width: 2 }))],
            axes: [{}, { label: 'messages' }],
          },
          data,
          holder,
        );
      } else holder.uplot.setData(data);
    },
  };
}
