// A line chart in SVG: series of points with their intervals, and
// labelled guides (the even line, the SPRT's bounds).

const SVG = "http://www.w3.org/2000/svg";

/** A line chart of `series` ([{name, points: [[x, y, lo, hi]]}]) with guides. */
export function chart(svg, series, guides) {
  const [w, h, left, bottom] = [520, Number(svg.getAttribute("viewBox").split(" ")[3]), 44, 22];
  const all = series.flatMap((s) => s.points).filter((p) => finite(p[1]));
  const xs = all.map((p) => p[0]);
  // The range holds every value, the guides and each series' last
  // interval; the early, wide intervals are cut at its edges.
  const lasts = series.map((s) => s.points[s.points.length - 1]).filter(Boolean);
  const ys = all.map((p) => p[1]).concat(lasts.flatMap((p) => [p[2], p[3]]), guides.map((g) => g.y))
    .filter((v) => v !== null && v !== undefined && isFinite(v));
  const [x0, x1] = [0, Math.max(1, ...xs)];
  const [y0, y1] = ys.length ? [Math.min(...ys), Math.max(...ys)] : [-1, 1];
  const pad = (y1 - y0) * 0.08 || 1;
  const X = (x) => left + ((x - x0) / (x1 - x0)) * (w - left - 8);
  const Y = (y) => 6 + ((y1 + pad - Math.max(y0 - pad, Math.min(y1 + pad, y))) / (y1 - y0 + 2 * pad)) * (h - bottom - 6);
  const el = (tag, attrs, text) => {
    const e = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  };
  const parts = [el("line", { x1: left, y1: h - bottom, x2: w - 8, y2: h - bottom, class: "axis" }),
    el("text", { x: w - 8, y: h - 4, "text-anchor": "end" }, `games played (${x1})`),
    el("text", { x: 2, y: Y(y1 + pad) + 10 }, (y1 + pad).toFixed(1)),
    el("text", { x: 2, y: Y(y0 - pad) }, (y0 - pad).toFixed(1))];
  for (const g of guides) {
    parts.push(el("line", { x1: left, x2: w - 8, y1: Y(g.y), y2: Y(g.y), class: `guide ${g.kind}` }));
    parts.push(el("text", { x: w - 10, y: Y(g.y) - 3, "text-anchor": "end", class: "guide-label" }, g.label));
  }
  // A series with no finite value (a pairing one side won every game of)
  // has nothing to draw: it gets no legend, and its name is returned.
  const drawn = series.map((s) => ({ ...s, points: s.points.filter((p) => finite(p[1])) }))
    .filter((s) => s.points.length);
  drawn.forEach((s, i) => {
    for (const p of s.points) {
      if (finite(p[2]) && finite(p[3])) parts.push(el("line", { x1: X(p[0]), x2: X(p[0]), y1: Y(p[2]), y2: Y(p[3]), class: `bar s${i % 4}` }));
    }
    parts.push(el("polyline", { points: s.points.map((p) => `${X(p[0])},${Y(p[1])}`).join(" "), class: `series s${i % 4}` }));
    parts.push(el("text", { x: left + 6, y: 16 + 14 * i, class: `legend s${i % 4}` }, s.name));
  });
  svg.replaceChildren(...parts);
  return series.filter((s) => !drawn.some((d) => d.name === s.name)).map((s) => s.name);
}

/** Whether `x` is a number to draw (the server sends an infinite one as null). */
const finite = (x) => typeof x === "number" && Number.isFinite(x);
