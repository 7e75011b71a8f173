// The analysis board: draws any variant's board from its geometry (/api/variants), asks
// the server for the game so far (/api/game) and the engine's moves (/api/engine).
// A move is entered by clicks: the stone to move (not when placing), the point, then the
// stones to remove. The URL holds variant, start position, moves and mode, so a link
// opens the same game.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const state = {
  variants: {},       // name -> variant (board geometry, stones, rules)
  variant: null,      // the name shown
  start: "",          // start position text ("" is the empty board)
  moves: [],          // moves played from the start, in notation
  redo: [],           // moves taken back, the last taken back last
  data: null,         // /api/game's answer for start + moves
  clicks: [],         // points clicked so far for the next move
  busy: false,        // a request (or the engine) is under way
};
const $ = (id) => document.getElementById(id);

async function api(path, params) {
  const response = await fetch(`${path}?${new URLSearchParams(params)}`);
  const body = await response.json();
  if (!response.ok) throw new Error(body.error || `${response.status}`);
  return body;
}

function gameParams() {
  return {
    variant: state.variant, start: state.start, moves: state.moves.join(" "),
    draw_rules: $("draw-rules").checked ? "1" : "0",
  };
}

function valueText(value) {
  if (!value) return "no table";
  return value.result === "draw" ? "draw" : `${value.result} in ${value.plies}`;
}

// the clicks that enter a move: origin (moving only), target, then each removed stone
function sequence(move) {
  return [...(move.origin ? [move.origin] : []), move.target, ...move.removed];
}

function matches(move, clicks) {
  const seq = sequence(move);
  const head = seq.length - move.removed.length;
  if (clicks.length > seq.length) return false;
  for (let i = 0; i < Math.min(head, clicks.length); i++) if (clicks[i] !== seq[i]) return false;
  const removed = clicks.slice(head);
  return new Set(removed).size === removed.length && removed.every((p) => move.removed.includes(p));
}

function humanToMove() {
  const mode = $("mode").value;
  return mode === "analyse" || mode === "friends" || state.data.to_move === mode;
}

async function refresh() {
  state.busy = true;
  document.body.dataset.ready = "0";
  try {
    state.data = await api("/api/game", gameParams());
    $("error").textContent = "";
  } catch (err) {
    $("error").textContent = err.message;
    state.busy = false;
    document.body.dataset.ready = "1";
    return false;
  }
  state.clicks = [];
  state.busy = false;
  render();
  saveUrl();
  if (!state.data.over && !humanToMove()) await engineMove();
  else document.body.dataset.ready = "1";
  return true;
}

async function engineMove() {
  state.busy = true;
  try {
    const params = { ...gameParams(), strength: $("strength").value };
    const { move } = await api("/api/engine", params);
    state.moves.push(move);
    state.redo = [];
    state.busy = false;
    await refresh();
  } catch (err) {
    $("error").textContent = `engine: ${err.message}`;
    state.busy = false;
    document.body.dataset.ready = "1";
  }
}

async function play(text) {
  if (state.busy) return;
  state.moves.push(text);
  state.redo = [];
  if (!(await refresh())) state.moves.pop();
}

function onPoint(name) {
  const data = state.data;
  if (state.busy || !data || data.over || !humanToMove()) return;
  let clicks = [...state.clicks, name];
  let matching = data.moves.filter((m) => matches(m, clicks));
  if (!matching.length) {  // start again from this point
    clicks = [name];
    matching = data.moves.filter((m) => matches(m, clicks));
    if (!matching.length) clicks = [];
  }
  const complete = matching.filter((m) => sequence(m).length === clicks.length);
  if (complete.length && complete.length === matching.length) {
    play(complete[0].move);
    return;
  }
  state.clicks = clicks;
  render();
}

function drawBoard() {
  const variant = state.variants[state.variant];
  const { points, coords, edges } = variant.board;
  const size = Math.max(...coords.flat());
  const svg = $("board");
  svg.setAttribute("viewBox", `-0.75 -0.75 ${size + 1.5} ${size + 1.5}`);
  svg.replaceChildren();
  const xy = (i) => [coords[i][0], size - coords[i][1]];
  const add = (tag, attrs, parent = svg) => {
    const el = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
    parent.appendChild(el);
    return el;
  };
  // file letters below the board and rank numbers left of it, read off the point names
  const files = new Map(), ranks = new Map();
  points.forEach((name, i) => {
    files.set(coords[i][0], name.match(/^[a-z]+/)[0]);
    ranks.set(coords[i][1], name.match(/\d+$/)[0]);
  });
  for (const [x, letter] of files) add("text", { x, y: size + 0.62, class: "label" }).textContent = letter;
  for (const [y, number] of ranks) add("text", { x: -0.62, y: size - y, class: "label" }).textContent = number;
  for (const [a, b] of edges) {
    const [x1, y1] = xy(a);
    const [x2, y2] = xy(b);
    add("line", { x1, y1, x2, y2 });
  }
  const data = state.data;
  const stones = new Map([...data.white.map((p) => [p, "white"]), ...data.black.map((p) => [p, "black"])]);
  const hints = targetHints();
  points.forEach((name, i) => {
    const [cx, cy] = xy(i);
    add("circle", { cx, cy, r: 0.1, class: "point" });
    if (stones.has(name)) {
      const chosen = state.clicks.includes(name) ? " selected" : "";
      add("circle", { cx, cy, r: 0.32, class: `stone ${stones.get(name)}${chosen}`, "data-stone": name });
    }
    if (hints.has(name) && $("show-values").checked) {
      add("circle", { cx, cy, r: 0.13, class: `hint ${hints.get(name)}` });
    }
    const hit = add("circle", { cx, cy, r: 0.45, class: "hit", "data-point": name });
    const title = add("title", {}, hit);
    title.textContent = name;
    hit.addEventListener("click", () => onPoint(name));
  });
}

// the points the next click can go to, with the best result of the moves through them
function targetHints() {
  const hints = new Map();
  if (!state.data || state.data.over || !state.clicks.length) return hints;
  const rank = { win: 0, draw: 1, loss: 2, unknown: 3 };
  for (const move of state.data.moves) {
    if (!matches(move, state.clicks)) continue;
    const next = sequence(move)[state.clicks.length];
    if (!next) continue;
    const result = move.value ? move.value.result : "unknown";
    if (!hints.has(next) || rank[result] < rank[hints.get(next)]) hints.set(next, result);
  }
  return hints;
}

function render() {
  const data = state.data;
  drawBoard();
  const side = data.to_move === "white" ? "White" : "Black";
  $("status").textContent =
    `${side} to move (${data.phase}); in hand: White ${data.hands.white}, Black ${data.hands.black}`;
  const over = $("over");
  over.hidden = !data.over;
  if (data.over) {
    const who = data.over.winner ? `${data.over.winner === "white" ? "White" : "Black"} wins` : "Draw";
    over.textContent = `Game over: ${who} (${data.over.reason}).`;
  }
  const show = $("show-values").checked;
  const value = $("value");
  const plies = data.value && data.value.plies !== null ? " plies" : "";
  value.textContent = show ? `${side}: ${valueText(data.value)}${plies}` : "";
  value.className = show && data.value ? data.value.result : "";
  value.dataset.result = data.value ? data.value.result : "";
  value.dataset.plies = data.value && data.value.plies !== null ? data.value.plies : "";
  if (show && data.value_error) value.title = data.value_error;
  if (show && data.rule_value) {  // the tables hold values under the move limit
    const rule = data.rule_value;
    const z = rule.plies_to_capture !== null && rule.result !== "draw"
      ? ` (${rule.plies_to_capture} plies to the deciding capture)` : "";
    value.textContent += `; under the draw rule: ${rule.result}${z}, ${rule.class} at count 0`;
    value.className = rule.result;
  }
  value.dataset.ruleResult = data.rule_value ? data.rule_value.result : "";
  const counter = $("counter");
  counter.hidden = data.quiet_plies_limit === null;
  counter.textContent = `Moving plies without a capture: ${data.quiet_plies} of ${data.quiet_plies_limit}`;
  const list = $("moves");
  list.replaceChildren();
  for (const move of data.moves) {
    const li = document.createElement("li");
    li.dataset.move = move.move;
    li.dataset.result = move.value ? move.value.result : "";
    li.dataset.plies = move.value && move.value.plies !== null ? move.value.plies : "";
    li.textContent = show ? `${move.move}  ${valueText(move.value)}` : move.move;
    if (show && move.value) li.className = move.value.result;
    if (move.rule) {  // under the draw rule: its result decides the colour
      li.dataset.ruleResult = move.rule.result;
      if (show) {
        li.textContent += `, rule ${move.rule.result}`;
        li.className = move.rule.result;
      }
    }
    li.addEventListener("click", () => { if (humanToMove()) play(move.move); });
    list.appendChild(li);
  }
  $("position-text").value = data.position;
  $("move-list").value = state.moves.join(" ");
  $("undo").disabled = !state.moves.length;
  $("redo").disabled = !state.redo.length;
}

function saveUrl() {
  const params = new URLSearchParams({ variant: state.variant });
  if (state.start) params.set("start", state.start);
  if (state.moves.length) params.set("moves", state.moves.join(" "));
  if ($("mode").value !== "analyse") params.set("mode", $("mode").value);
  if ($("strength").value !== "perfect") params.set("strength", $("strength").value);
  if ($("draw-rules").checked) params.set("draw_rules", "1");
  history.replaceState(null, "", `?${params}`);
}

async function undo() {
  if (state.busy || !state.moves.length) return;
  const mode = $("mode").value;
  const other = (side) => (side === "white" ? "black" : "white");
  state.redo.push(state.moves.pop());
  // against the engine, back to the last position the human was to move in
  const againstEngine = mode === "white" || mode === "black";
  if (againstEngine && other(state.data.to_move) !== mode && state.moves.length) {
    state.redo.push(state.moves.pop());
  }
  await refresh();
}

async function redo() {
  if (state.busy || !state.redo.length) return;
  state.moves.push(state.redo.pop());
  await refresh();
}

function setVariant(name) {
  state.variant = name;
  state.start = "";
  state.moves = [];
  state.redo = [];
}

async function init() {
  const { variants } = await api("/api/variants", {});
  for (const v of variants) state.variants[v.name] = v;
  const select = $("variant");
  for (const v of variants) select.appendChild(new Option(v.name, v.name));
  if (!variants.length) {
    $("error").textContent = "This server holds no tables: start it with morris serve --db FILE.";
    return;
  }
  const params = new URLSearchParams(location.search);
  const wanted = params.get("variant");
  setVariant(state.variants[wanted] ? wanted : variants[0].name);
  if (wanted && !state.variants[wanted]) $("error").textContent = `no tables of ${wanted} here`;
  select.value = state.variant;
  state.start = params.get("start") || "";
  state.moves = (params.get("moves") || "").split(/\s+/).filter(Boolean);
  for (const id of ["mode", "strength"]) {
    const options = [...$(id).options].map((o) => o.value);
    if (options.includes(params.get(id))) $(id).value = params.get(id);
  }
  $("draw-rules").checked = params.get("draw_rules") === "1";
  select.addEventListener("change", () => { setVariant(select.value); refresh(); });
  $("mode").addEventListener("change", () => refresh());
  $("strength").addEventListener("change", () => saveUrl());
  $("draw-rules").addEventListener("change", () => refresh());
  $("show-values").addEventListener("change", () => render());
  $("undo").addEventListener("click", undo);
  $("redo").addEventListener("click", redo);
  $("restart").addEventListener("click", () => { state.moves = []; state.redo = []; refresh(); });
  $("copy-link").addEventListener("click", () => navigator.clipboard.writeText(location.href));
  $("position-text").addEventListener("change", async (e) => {
    const before = [state.start, state.moves, state.redo];
    [state.start, state.moves, state.redo] = [e.target.value.trim(), [], []];
    if (!(await refresh())) [state.start, state.moves, state.redo] = before;
  });
  $("move-list").addEventListener("change", async (e) => {
    const before = [state.moves, state.redo];
    [state.moves, state.redo] = [e.target.value.split(/\s+/).filter(Boolean), []];
    if (!(await refresh())) [state.moves, state.redo] = before;
  });
  if (!(await refresh()) && (state.start || state.moves.length)) {
    setVariant(state.variant);  // a link that does not parse: the empty board instead
    await refresh();
  }
}

init().catch((err) => { $("error").textContent = err.message; });
