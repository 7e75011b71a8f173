// BoardView: draws a Mill board and what stands on it into an <svg>, for any variant, from
// the geometry /api/variants gives (points, coords, edges). A plain script that defines
// the one global BoardView (no build step), so any page of the site can use it:
//
//   <link rel="stylesheet" href="/static/board.css">   (the .boardview rules)
//   <script src="/static/boardview.js"></script>
//   const view = new BoardView(svgElement, variant, { onPoint: (name) => ..., label });
//   view.render({ white: ["a1"], black: ["c1"], selected: ["a1"],
//                 hints: new Map([["a2", "win"]]), lastMove: { origin: null, target: "c1" } });
//   (lastMove.removed: the stones it took, each marked with a cross on its empty point;
//   pending: {color, origin, target}: a move sent but not yet acknowledged, its stone
//   drawn faint where it goes)
//
// The view only draws and reports: onPoint(name) is called when a point is clicked, or
// when Enter or Space is pressed on it; what that means is the page's business. The board
// is one tab stop (roving focus): the arrow keys move between points, along the board's
// lines where one leads that way, else to the nearest point in that direction. Every
// point is named for assistive technology by its name and what stands on it, and a hint
// has a shape besides its colour (BoardView.markIcon draws the same shapes for a legend).
//
// Static helpers for entering a move by clicks, the same on every page that plays: a
// legal move ({origin (null when placing), target, removed: [...]}, as /api/game and a
// room's state list them) is the clicks BoardView.sequence(move); BoardView.click(moves,
// clicks, name) says what one more click makes of the clicks so far, and
// BoardView.nextPoints(moves, clicks) where the next click can go (for hint marks).
"use strict";

class BoardView {
  static SVG = "http://www.w3.org/2000/svg";

  // what the hints mean, for the points' accessible names and a page's legend
  static HINTS = {
    win: "leads to a win",
    draw: "leads to a draw",
    loss: "leads to a loss",
    unknown: "no value",
    target: "can go here",
  };

  // variant: an entry of /api/variants' "variants" ({name, board: {points, coords,
  // edges}}). options.onPoint(name): a point was activated; options.label: the board's
  // accessible name. A new BoardView on the same svg replaces the one drawn there.
  constructor(svg, variant, { onPoint = () => {}, label = `${variant.name} board` } = {}) {
    this.svg = svg;
    this.variant = variant;
    this.board = variant.board;
    this.onPoint = onPoint;
    this.size = Math.max(...this.board.coords.flat());
    this.adjacent = this.board.points.map(() => []);
    for (const [a, b] of this.board.edges) {
      this.adjacent[a].push(b);
      this.adjacent[b].push(a);
    }
    svg.classList.add("boardview");
    svg.setAttribute("role", "group");
    svg.setAttribute("aria-label", label);
    svg.setAttribute("viewBox", `-0.75 -0.75 ${this.size + 1.5} ${this.size + 1.5}`);
    svg.replaceChildren();
    this.drawLines();
    this.pieces = this.add("g", { class: "pieces", "aria-hidden": "true" });  // redrawn by render()
    this.hits = this.board.points.map((name, i) => this.drawHit(name, i));
    this.focused = 0;  // the point that holds the board's tab stop
    this.hits[0].setAttribute("tabindex", "0");
    this.render();
  }

  // position: {white, black, selected: arrays of point names; hints: a Map (or object) of
  // point name -> "win" | "draw" | "loss" | "unknown" | "target"; lastMove: {origin (null
  // when placing), target, removed (optional)}, e.g. an /api/game move; pending: {color,
  // origin, target} or null}. Missing fields are empty. Keyboard focus stays where it is.
  render({ white = [], black = [], selected = [], hints = new Map(), lastMove = null,
           pending = null } = {}) {
    const marks = hints instanceof Map ? hints : new Map(Object.entries(hints));
    const stones = new Map([...white.map((p) => [p, "white"]), ...black.map((p) => [p, "black"])]);
    const last = [lastMove?.origin, lastMove?.target].filter(Boolean);
    const taken = lastMove?.removed || [];
    this.pieces.replaceChildren();
    this.board.points.forEach((name, i) => {
      const [cx, cy] = this.xy(i);
      if (last.includes(name)) {
        const kind = name === lastMove.target ? "last" : "last origin";
        this.add("circle", { cx, cy, r: 0.44, class: kind }, this.pieces);
      }
      const stone = stones.get(name);
      const chosen = selected.includes(name) ? " selected" : "";
      const ghost = !stone && pending && name === pending.target;
      if (taken.includes(name) && !stone) {  // a stone the last move took: a cross
        this.add("path", { d: `M${cx - 0.2} ${cy - 0.2}l.4 .4m0-.4l-.4 .4`, class: "taken",
                           "data-taken": name }, this.pieces);
      }
      if (stone) {
        this.add("circle", { cx, cy, r: 0.32, class: `stone ${stone}${chosen}`, "data-stone": name },
          this.pieces);
      } else if (ghost) {  // a move on its way to the server
        this.add("circle", { cx, cy, r: 0.32, class: `stone ${pending.color} pending${chosen}`,
                             "data-pending": name }, this.pieces);
      } else if (chosen) {  // where the chosen stone is to go
        this.add("circle", { cx, cy, r: 0.32, class: "selected" }, this.pieces);
      }
      if (marks.has(name)) this.pieces.appendChild(BoardView.mark(marks.get(name), cx, cy));
      this.hits[i].firstChild.textContent = this.describe(name, stone, selected.includes(name),
        marks.get(name), last.includes(name), taken.includes(name) && !stone, ghost);
    });
  }

  // moves keyboard focus to a point (by default the one holding the tab stop)
  focus(name) {
    const i = name === undefined ? this.focused : this.board.points.indexOf(name);
    if (i >= 0) this.hits[i].focus();
  }

  // a hint's mark alone, as a small inline <svg> for a legend
  static markIcon(kind) {
    const icon = document.createElementNS(BoardView.SVG, "svg");
    icon.setAttribute("viewBox", "-0.25 -0.25 0.5 0.5");
    icon.setAttribute("class", "boardview mark-icon");
    icon.setAttribute("aria-hidden", "true");
    icon.appendChild(BoardView.mark(kind, 0, 0));
    return icon;
  }

  // a hint's mark centred on (cx, cy): a shape per kind, so the colour is not the only
  // sign; each is drawn twice, a pale halo under the colour, to show on either stone
  static mark(kind, cx, cy) {
    const g = document.createElementNS(BoardView.SVG, "g");
    g.setAttribute("class", `hint ${kind}`);
    g.setAttribute("transform", `translate(${cx} ${cy})`);
    const shapes = {
      win: ["circle", { r: 0.14 }],                               // a filled disc
      draw: ["circle", { r: 0.14 }],                              // a ring
      loss: ["path", { d: "M-.13-.13L.13.13M-.13.13L.13-.13" }],  // a cross
      unknown: ["path", { d: "M-.1-.07a.1.1 0 1 1 .1.1v.05M0 .15v.01" }],  // a question mark
      target: ["path", { d: "M0-.16L.16 0 0 .16-.16 0Z" }],      // a diamond
    };
    const [tag, attrs] = shapes[kind] || shapes.unknown;
    for (const layer of ["halo", "ink"]) {
      const el = document.createElementNS(BoardView.SVG, tag);
      for (const [k, v] of Object.entries({ ...attrs, class: layer })) el.setAttribute(k, v);
      g.appendChild(el);
    }
    return g;
  }

  // the clicks that enter a move: origin (moving only), target, then each removed stone
  static sequence(move) {
    return [...(move.origin ? [move.origin] : []), move.target, ...move.removed];
  }

  // whether the clicks so far can still become the move (the stones to remove in any order)
  static matches(move, clicks) {
    const seq = BoardView.sequence(move);
    const head = seq.length - move.removed.length;
    if (clicks.length > seq.length) return false;
    for (let i = 0; i < Math.min(head, clicks.length); i++) if (clicks[i] !== seq[i]) return false;
    const removed = clicks.slice(head);
    return new Set(removed).size === removed.length && removed.every((p) => move.removed.includes(p));
  }

  // one more click on point `name` after `clicks`, among the legal `moves`: {move} when
  // the clicks complete a move (no longer one could still follow), else {clicks}: the
  // clicks to keep. A click on the last point clicked takes that click back (the chosen
  // stone clicked again: none chosen); one that fits no move starts again from that
  // point, or clears.
  static click(moves, clicks, name) {
    if (clicks.length && clicks.at(-1) === name) return { clicks: clicks.slice(0, -1) };
    let next = [...clicks, name];
    let matching = moves.filter((m) => BoardView.matches(m, next));
    if (!matching.length) {
      next = [name];
      matching = moves.filter((m) => BoardView.matches(m, next));
      if (!matching.length) next = [];
    }
    const complete = matching.filter((m) => BoardView.sequence(m).length === next.length);
    if (complete.length && complete.length === matching.length) return { move: complete[0] };
    return { clicks: next };
  }

  // the points the next click can go to after `clicks` (none before the first click), each
  // with the moves through it: a Map of point name -> moves
  static nextPoints(moves, clicks) {
    const points = new Map();
    if (!clicks.length) return points;
    for (const move of moves) {
      const next = BoardView.sequence(move)[clicks.length];
      if (!next || !BoardView.matches(move, clicks)) continue;
      points.set(next, [...(points.get(next) || []), move]);
    }
    return points;
  }

  // a move's text ("d6-d5xa1") as render()'s lastMove
  static parseMove(text) {
    const [head, ...removed] = text.split("x");
    const [origin, target] = head.includes("-") ? head.split("-") : [null, head];
    return { origin, target, removed };
  }

  // svg coordinates of point i: the board's y axis points up, the screen's down
  xy(i) {
    const [x, y] = this.board.coords[i];
    return [x, this.size - y];
  }

  add(tag, attrs, parent = this.svg) {
    const el = document.createElementNS(BoardView.SVG, tag);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
    parent.appendChild(el);
    return el;
  }

  // the lines, the points, and file letters below and rank numbers left of the board,
  // read off the point names: what does not change during a game
  drawLines() {
    const { points, coords, edges } = this.board;
    const files = new Map(), ranks = new Map();
    points.forEach((name, i) => {
      files.set(coords[i][0], name.match(/^[a-z]+/)[0]);
      ranks.set(coords[i][1], name.match(/\d+$/)[0]);
    });
    const art = this.add("g", { "aria-hidden": "true" });  // the points speak for themselves
    for (const [x, letter] of files) {
      this.add("text", { x, y: this.size + 0.62, class: "label" }, art).textContent = letter;
    }
    for (const [y, number] of ranks) {
      this.add("text", { x: -0.62, y: this.size - y, class: "label" }, art).textContent = number;
    }
    for (const [a, b] of edges) {
      const [x1, y1] = this.xy(a);
      const [x2, y2] = this.xy(b);
      this.add("line", { x1, y1, x2, y2 }, art);
    }
    points.forEach((name, i) => {
      const [cx, cy] = this.xy(i);
      this.add("circle", { cx, cy, r: 0.1, class: "point" }, art);
    });
  }

  // the point's target for pointer and keyboard, drawn over the stones: a square, so the
  // focus ring (its outline) looks like no mark; its <title> is its accessible name (and
  // tooltip), rewritten by render()
  drawHit(name, i) {
    const [cx, cy] = this.xy(i);
    const hit = this.add("rect", {
      x: cx - 0.45, y: cy - 0.45, width: 0.9, height: 0.9, rx: 0.12,
      class: "hit", role: "button", tabindex: "-1", "data-point": name,
    });
    this.add("title", {}, hit);
    hit.addEventListener("click", () => this.onPoint(name));
    hit.addEventListener("focus", () => this.rove(i));
    hit.addEventListener("keydown", (event) => this.key(event, i));
    return hit;
  }

  describe(name, stone, selected, hint, last, taken, pending) {
    const parts = [name, stone ? `${stone} stone` : "empty"];
    if (selected) parts.push("selected");
    if (last) parts.push("last move");
    if (taken) parts.push("stone taken by the last move");
    if (pending) parts.push("your move, not yet sent");
    if (hint) parts.push(BoardView.HINTS[hint] || hint);
    return parts.join(", ");
  }

  // the focused point takes the board's one tab stop, so Tab leaves the board and comes
  // back to the same point
  rove(i) {
    this.hits[this.focused].setAttribute("tabindex", "-1");
    this.hits[i].setAttribute("tabindex", "0");
    this.focused = i;
  }

  key(event, i) {
    const arrows = { ArrowUp: [0, 1], ArrowDown: [0, -1], ArrowLeft: [-1, 0], ArrowRight: [1, 0] };
    if (event.key === "Enter" || event.key === " ") {
      this.onPoint(this.board.points[i]);
    } else if (arrows[event.key]) {
      const next = this.neighbour(i, arrows[event.key]);
      if (next !== null) this.hits[next].focus();
    } else {
      return;
    }
    event.preventDefault();  // no page scroll, no second activation by a click
  }

  // the point the arrow (dx, dy) leads to from point i: one joined to it by a line at
  // most 45 degrees off that direction, the straightest; else the nearest point on that
  // side, sideways distance counting double; null at the edge of the board
  neighbour(i, [dx, dy]) {
    const coords = this.board.coords;
    const offset = (j) => {
      const x = coords[j][0] - coords[i][0], y = coords[j][1] - coords[i][1];
      return { along: x * dx + y * dy, across: Math.abs(x * dy - y * dx) };
    };
    const best = (candidates, cost) => {
      let found = null, lowest = Infinity;
      for (const j of candidates) {
        if (cost(j) < lowest) [found, lowest] = [j, cost(j)];
      }
      return found;
    };
    const onLine = this.adjacent[i].filter((j) => {
      const { along, across } = offset(j);
      return along > 0 && across <= along;
    });
    if (onLine.length) return best(onLine, (j) => offset(j).across / offset(j).along);
    const ahead = coords.map((_, j) => j).filter((j) => offset(j).along > 0);
    return best(ahead, (j) => offset(j).along + 2 * offset(j).across);
  }
}
