// @ts-check
/* A campaign's plots (uPlot, served from /app/assets/uplot.js). */
import { h } from './dom.js';

/**
 * The part of uPlot (uplot.js, a classic script that sets window.uPlot) the plots use.
 * @typedef {{ setData(data: number[][]): void }} UPlot
 * @typedef {new (options: object, data: number[][], target: HTMLElement) => UPlot} UPlotClass
 */

/**
 * Cumulative series over the timeline's buckets: uPlot data [[x…], [y…]…].
 * @template {string} K
 * @param {({ at: string } & Record<K, number>)[]} points
 * @param {K[]} keys
 * @returns {number[][]}
 */
export function cumulative(points, keys) {
  const xs = points.map((p) => new Date(p.at).getTime() / 1000);
  return [
    xs,
    ...keys.map((k) =>
      points.reduce((acc, p, i) => (acc.push((i ? acc[i - 1] : 0) + p[k]), acc), /** @type {number[]} */ ([])),
    ),
  ];
}

/**
 * A plot of cumulative series; its uPlot instance is the element's `uplot` (the browser test reads it).
 * @param {string} id
 * @param {string} title
 * @param {string[]} series
 * @param {string[]} colors
 */
export function plot(id, title, series, colors) {
  const holder = /** @type {HTMLElement & { uplot?: UPlot }} */ (
    h('figure', { class: 'plot', id, 'aria-label': title }, h('figcaption', {}, title))
  );
  const uPlot = /** @type {{ uPlot?: UPlotClass }} */ (/** @type {unknown} */ (window)).uPlot;
  const empty = h('p', { class: 'muted' }, 'Nothing yet.');
  holder.append(empty);
  return {
    el: holder,
    /** @param {number[][]} data */
    update(data) {
      empty.hidden = data[0].length > 0;
      holder.dataset.points = String(data[0].length);
      if (!data[0].length || !uPlot) return;
      const width = Math.max(260, holder.clientWidth - 16);
      if (!holder.uplot) {
        holder.uplot = new uPlot(
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
