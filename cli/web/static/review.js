// ReviewPanel: a played game reviewed move by move with the tables, drawn into a page's
// element. The review is the JSON of /api/review (the analysis board's game) or of
// /api/rooms/ID/review (a room's finished game); both pages show it the same way:
//
//   <script src="/static/review.js"></script>     (styles: the .review rules of board.css)
//   ReviewPanel.render(element, review, { title: "Game 1: White wins", drawRules: true });
//
// It shows White's value at every ply as an inline SVG chart (+1 a White win at the top,
// 0 a draw, -1 a Black win at the bottom, gaps where no table holds the position), the
// turning points with the move that kept the result, and every move with its values and
// its mark in words (never colour alone). Every point of the chart and every move links
// to that position on the analysis board (/?variant=V&start=S&moves=...), which reads
// those parameters from its address.
"use strict";

const ReviewPanel = {
  SVG: "http://www.w3.org/2000/svg",

  // the chart's geometry, in viewBox units: the plot area and the y of each value
  CHART: { left: 84, width: 480, right: 14, top: 16, bottom: 34, rowHeight: 48 },

  // review: the review JSON; title: the heading's text; drawRules: whether the game was
  // played under the draw rules (the analysis board then opens it under them too)
  render(element, review, { title, drawRules = false }) {
    const heading = ReviewPanel.el("h2", {}, title);
    const links = (k) => ReviewPanel.analysisUrl(review, k, drawRules);
    element.replaceChildren(
      heading,
      ReviewPanel.chart(review, links),
      ReviewPanel.turningPoints(review),
      ReviewPanel.moveTable(review, links),
    );
    element.classList.add("review");
    element.hidden = false;
  },

  // the address of the analysis board showing the position after the first k moves
  analysisUrl(review, k, drawRules) {
    const params = new URLSearchParams({ variant: review.variant, start: review.start });
    if (k) params.set("moves", review.moves.slice(0, k).join(" "));
    if (drawRules) params.set("draw_rules", "1");
    return `/?${params}`;
  },

  // a value as words: "win in 5", "draw", "loss in 4"; "no value" without one
  valueText(value) {
    if (!value) return "no value";
    return value.plies === null ? value.result : `${value.result} in ${value.plies}`;
  },

  // White's value at the position after k plies, in words
  whiteText(point) {
    if (point.white === null) return "no table holds it";
    const plies = point.plies === null ? "" : ` in ${point.plies} plies`;
    return { 1: `White wins${plies}`, 0: "a draw", "-1": `Black wins${plies}` }[point.white];
  },

  // the value-by-ply chart: a line through White's values, a gap where one is missing
  // (those plies sit on a strip of their own below), each point a link
  chart(review, links) {
    const c = ReviewPanel.CHART;
    const points = review.chart;
    const anyMissing = points.some((p) => p.white === null);
    const rows = anyMissing ? 4 : 3;  // win, draw, loss, and the strip of missing values
    const height = c.top + (rows - 1) * c.rowHeight + c.bottom;
    const step = c.width / Math.max(points.length - 1, 1);
    const x = (k) => c.left + k * step;
    const y = (white) => c.top + (white === null ? 3 : 1 - white) * c.rowHeight;
    const svg = ReviewPanel.svg("svg", {
      viewBox: `0 0 ${c.left + c.width + c.right} ${height}`, class: "review-chart",
      role: "group", "aria-label": "White's value after each ply; each point opens that position",
    });
    const labels = ["White wins", "draw", "Black wins", ...(anyMissing ? ["no table"] : [])];
    labels.forEach((text, row) => {
      const ly = c.top + row * c.rowHeight;
      svg.append(
        ReviewPanel.svg("line", { x1: c.left, x2: c.left + c.width, y1: ly, y2: ly, class: "grid" }),
        ReviewPanel.svg("text", { x: c.left - 8, y: ly, class: "axis" }, text),
      );
    });
    for (const k of ReviewPanel.ticks(points.length - 1)) {
      svg.append(ReviewPanel.svg("text", { x: x(k), y: height - 10, class: "axis ply" }, String(k)));
    }
    svg.append(ReviewPanel.svg("text", { x: c.left - 8, y: height - 10, class: "axis" }, "ply"));
    // the line: one polyline per run of known values
    let run = [];
    for (const p of [...points, { white: null }]) {
      if (p.white !== null) {
        run.push(`${x(p.ply)},${y(p.white)}`);
        continue;
      }
      if (run.length > 1) svg.append(ReviewPanel.svg("polyline", { points: run.join(" "), class: "line" }));
      run = [];
    }
    const turning = new Set(review.turning_points);
    const radius = Math.max(2, Math.min(6, step * 0.35));
    for (const p of points) {
      const kind = p.white === null ? "missing" : { 1: "white", 0: "draw", "-1": "black" }[p.white];
      const before = p.ply ? `after ${review.plies[p.ply - 1].mover}'s ${review.moves[p.ply - 1]}` : "the start";
      const name = `Ply ${p.ply} (${before}): ${ReviewPanel.whiteText(p)}` +
        (turning.has(p.ply) ? ", a turning point" : "");
      const link = ReviewPanel.svg("a", { href: links(p.ply), "aria-label": name, "data-ply": p.ply });
      link.append(ReviewPanel.svg("title", {}, name));
      if (turning.has(p.ply)) {
        link.append(ReviewPanel.svg("circle", { cx: x(p.ply), cy: y(p.white), r: radius + 3, class: "turn" }));
      }
      link.append(ReviewPanel.svg("circle", {
        cx: x(p.ply), cy: y(p.white), r: radius, class: `point ${kind}`,
        "data-white": p.white === null ? "" : p.white,
      }));
      svg.append(link);
    }
    const figure = ReviewPanel.el("figure", { class: "review-figure" });
    figure.append(svg, ReviewPanel.el("figcaption", {},
      "White's value after each ply with perfect play from there (a ring: a turning " +
      "point). Click a point to open that position on the analysis board."));
    return figure;
  },

  // ply numbers to label on the axis: about ten, on round numbers
  ticks(last) {
    const every = [1, 2, 5, 10, 20, 50, 100].find((n) => last / n <= 10) || 200;
    const ticks = [];
    for (let k = 0; k <= last; k += every) ticks.push(k);
    return ticks;
  },

  // the moves that dropped their side's result a category, each with the move that kept it
  turningPoints(review) {
    const section = ReviewPanel.el("section", { class: "review-turns" });
    section.append(ReviewPanel.el("h3", {}, "Turning points"));
    if (!review.turning_points.length) {
      section.append(ReviewPanel.el("p", {}, review.plies.some((p) => p.missing)
        ? "None found among the moves the tables hold."
        : "None: every move kept its side's result."));
      return section;
    }
    const list = ReviewPanel.el("ul", {});
    for (const number of review.turning_points) {
      const ply = review.plies[number - 1];
      const item = ReviewPanel.el("li", { "data-ply": number },
        `Ply ${number}, ${ReviewPanel.side(ply.mover)} played ${ply.move}: ${ply.mark}. `);
      const kept = ReviewPanel.el("strong", {}, ply.best_value.result.toUpperCase());
      item.append(`Here the move ${ply.best} kept the `, kept, ".");
      list.append(item);
    }
    section.append(list);
    return section;
  },

  // every move: who played it, its value before and after for the mover, its mark in
  // words (with the better move), or why no value is known
  moveTable(review, links) {
    const section = ReviewPanel.el("section", { class: "review-moves" });
    section.append(ReviewPanel.el("h3", {}, "Moves"));
    const table = ReviewPanel.el("table", {});
    const head = ReviewPanel.el("tr", {});
    for (const text of ["Ply", "Move", "Before", "After", "Mark"]) {
      head.append(ReviewPanel.el("th", { scope: "col" }, text));
    }
    table.append(ReviewPanel.el("thead", {}, head));
    const body = ReviewPanel.el("tbody", {});
    for (const ply of review.plies) {
      const row = ReviewPanel.el("tr", {
        "data-ply": ply.ply, "data-mark": ply.mark || "",
        "data-before": ply.before ? ply.before.result : "",
        "data-after": ply.after ? ply.after.result : "",
      });
      const move = ReviewPanel.el("a", { href: links(ply.ply) }, ply.move);
      const taken = ply.move.split("x").slice(1);  // the stones it took, said in words
      const takes = taken.length
        ? [" ", ReviewPanel.el("span", { class: "taken", "data-taken": taken.join(" ") },
          `takes ${taken.join(", ")}`)] : [];
      const mark = ply.missing
        ? `no value: ${ply.missing}`
        : ply.mark ? `${ply.mark} (best: ${ply.best}, ${ReviewPanel.valueText(ply.best_value)})` : "";
      row.append(
        ReviewPanel.el("td", {}, String(ply.ply)),
        ReviewPanel.el("td", {}, `${ReviewPanel.side(ply.mover)} `, move, ...takes),
        ReviewPanel.el("td", { class: ply.before ? ply.before.result : "" }, ReviewPanel.valueText(ply.before)),
        ReviewPanel.el("td", { class: ply.after ? ply.after.result : "" }, ReviewPanel.valueText(ply.after)),
        ReviewPanel.el("td", { class: ply.missing ? "missing" : "mark" }, mark),
      );
      if (ply.mark) row.classList.add("marked");
      body.append(row);
    }
    table.append(body);
    section.append(ReviewPanel.el("p", { class: "review-note" },
      "Values are for the side that moves: before its move, and after it."));
    section.append(ReviewPanel.el("div", { class: "review-scroll" }, table));
    return section;
  },

  side(color) {
    return color === "white" ? "White" : "Black";
  },

  // an HTML element with attributes and children (text or nodes)
  el(tag, attrs, ...children) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
    el.append(...children);
    return el;
  },

  svg(tag, attrs, text) {
    const el = document.createElementNS(ReviewPanel.SVG, tag);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
    if (text !== undefined) el.textContent = text;
    return el;
  },
};
