// The analysis board: asks the server for the game so far (/api/game) and the engine's
// moves (/api/engine), and draws the board with BoardView (boardview.js). A move is
// entered by clicks or keys on the board: the stone to move (not when placing), the
// point, then the stones to remove. The URL holds variant, start position, moves and mode,
// so a link opens the same game. "Review" shows the game reviewed with the tables
// (/api/review, drawn by review.js); "Play a friend" creates a live room (room.js).
//
// A slow or failing server: the game shown changes only when the server's answer comes.
// While a request is out the page says so (after a moment, so quick answers do not
// flicker) and marks the board aria-busy; a click on the board then is not queued (it
// would land in a position the player has not seen yet) but answered with "wait for the
// answer". Every control that starts another game (variant, mode, New game, Undo, ...)
// supersedes the request: it is aborted, and the answer of any request but the latest is
// dropped, so a late engine move never lands in the next game. A request fails after
// TIMEOUT_MS; a failure reads as one line, with a Retry button where trying again can help.
"use strict";

const TIMEOUT_MS = 15000;
const BUSY_DELAY_MS = 200;  // answers quicker than this show no busy line
const state = {
  variants: {},       // name -> variant (board geometry, stones, rules)
  variant: null,      // the name shown
  start: "",          // start position text ("" is the empty board)
  moves: [],          // moves played from the start, in notation
  redo: [],           // moves taken back, the last taken back last
  data: null,         // /api/game's answer for start + moves
  clicks: [],         // points clicked so far for the next move
  view: null,         // the BoardView drawing state.variant
  generation: 0,      // counts the requests started: only the latest one's answer counts
  request: null,      // the request in flight: {generation, label, controller, timedOut}
  busyTimer: null,    // shows the busy line once a request has taken BUSY_DELAY_MS
  retry: null,        // what the Retry button does
};
const $ = (id) => document.getElementById(id);

// a failed request, in one line; transient when trying again may help (no answer, a
// server error), not for a request the server refused (an illegal move, say)
class RequestError extends Error {
  constructor(message, transient) {
    super(message);
    this.transient = transient;
  }
}

// the API's JSON answer; aborted with the request, or after TIMEOUT_MS
async function api(path, params, request) {
  const timer = setTimeout(() => {
    request.timedOut = true;
    request.controller.abort();
  }, TIMEOUT_MS);
  let response, text;
  try {
    response = await fetch(`${path}?${new URLSearchParams(params)}`,
      { signal: request.controller.signal });
    text = await response.text();
  } catch (err) {
    if (request.timedOut) throw new RequestError(`no answer from the server in ${TIMEOUT_MS / 1000} s`, true);
    if (request.controller.signal.aborted) throw err;  // superseded: nobody waits for it
    throw new RequestError("cannot reach the server", true);
  } finally {
    clearTimeout(timer);
  }
  let body = null;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: a proxy's error page, say; the status tells all there is to tell
  }
  if (!response.ok) {
    if (body && body.error) throw new RequestError(body.error, response.status >= 500);
    throw new RequestError(`server error ${response.status}`, true);
  }
  if (body === null) throw new RequestError("server error: the answer is not JSON", true);
  return body;
}

// starts a request, superseding the one in flight
function begin(label) {
  if (state.request) state.request.controller.abort();
  state.request = { generation: ++state.generation, label, controller: new AbortController(),
                    timedOut: false };
  showError("");
  document.body.dataset.ready = "0";
  $("board").setAttribute("aria-busy", "true");
  $("busy-text").textContent = label;
  if ($("busy").hidden && !state.busyTimer) {
    state.busyTimer = setTimeout(() => { $("busy").hidden = false; }, BUSY_DELAY_MS);
  }
  return state.request;
}

function isLatest(request) {
  return request.generation === state.generation;
}

function idle() {
  state.request = null;
  clearTimeout(state.busyTimer);
  state.busyTimer = null;
  $("busy").hidden = true;
  $("board").setAttribute("aria-busy", "false");
  document.body.dataset.ready = "1";
}

// a click or key while a request is out: said, not silently dropped
function askToWait() {
  $("busy-text").textContent = `${state.request.label} Wait for the answer, then play.`;
  $("busy").hidden = false;
}

// a request failed: says why in one line, with Retry (which runs retry) where it may help
function failed(request, err, retry, prefix = "") {
  if (!isLatest(request)) return;  // superseded: its failure is no news
  idle();
  const message = err instanceof RequestError ? err.message : String(err.message || err);
  showError(prefix + message.split("\n")[0], err.transient ? retry : null);
}

function showError(message, retry = null) {
  $("error").hidden = !message;
  $("error-text").textContent = message;
  $("retry").hidden = !retry;
  state.retry = retry;
}

// the game shown, as load() takes it
function game() {
  return { variant: state.variant, start: state.start, moves: [...state.moves],
           redo: [...state.redo] };
}

function gameParams(g) {
  return {
    variant: g.variant, start: g.start, moves: g.moves.join(" "),
    draw_rules: $("draw-rules").checked ? "1" : "0",
  };
}

// asks for the game `next` (as game() gives) and shows it, then lets the engine move if
// it is its turn; the game shown changes only with the answer. Resolves to the error
// that stopped it, if any (not to the abort of a request superseded).
async function load(next) {
  const request = begin("Loading…");
  let data;
  try {
    data = await api("/api/game", gameParams(next), request);
  } catch (err) {
    failed(request, err, () => load(next));
    return isLatest(request) ? err : null;  // a superseded request failed nothing
  }
  if (!isLatest(request)) return null;
  Object.assign(state, next, { data, clicks: [] });
  $("review").hidden = true;  // it was the review of another game
  if (!state.view || state.view.variant.name !== state.variant) {
    state.view = new BoardView($("board"), state.variants[state.variant], { onPoint });
  }
  render();
  saveUrl();
  if (!data.over && !humanToMove()) engineMove();
  else idle();
  return null;
}

async function engineMove() {
  const request = begin("Engine thinking…");
  let move;
  try {
    const params = { ...gameParams(game()), strength: $("strength").value };
    if (params.strength === "ultra") params.against = $("against").value;
    let engine;
    ({ move, engine } = await api("/api/engine", params, request));
    // without tables the server searches instead: say so where the strength is described
    if (isLatest(request)) showStrength(engine && !engine.tables ? engine.note : null);
  } catch (err) {
    failed(request, err, engineMove, "engine: ");
    return;
  }
  if (isLatest(request)) await load({ ...game(), moves: [...state.moves, move], redo: [] });
}

function valueText(value, timedOut = false) {
  if (!value) return timedOut ? "not found in time" : "no table";
  // a searched win or loss has no distance (plies null)
  return value.plies === null ? value.result : `${value.result} in ${value.plies}`;
}

function humanToMove() {
  const mode = $("mode").value;
  return mode === "analyse" || mode === "friends" || state.data.to_move === mode;
}

function play(text) {
  if (state.request) return askToWait();
  load({ ...game(), moves: [...state.moves, text], redo: [] });
}

function onPoint(name) {
  if (state.request) return askToWait();
  const data = state.data;
  if (!data || data.over || !humanToMove()) return;
  const step = BoardView.click(data.moves, state.clicks, name);
  if (step.move) {
    play(step.move.move);
    return;
  }
  state.clicks = step.clicks;
  render();
}

// the points the next click can go to: with the best result of the moves through them
// where values are shown, else just marked as targets
function targetHints(showValues) {
  const hints = new Map();
  if (state.data.over) return hints;
  const rank = { win: 0, draw: 1, loss: 2, unknown: 3 };
  for (const [point, moves] of BoardView.nextPoints(state.data.moves, state.clicks)) {
    const results = moves.map((m) => (m.value ? m.value.result : "unknown"));
    const best = results.reduce((a, b) => (rank[b] < rank[a] ? b : a));
    hints.set(point, showValues ? best : "target");
  }
  return hints;
}

function render() {
  const data = state.data;
  const show = $("show-values").checked;
  const last = data.moves_played.at(-1);
  state.view.render({
    white: data.white, black: data.black, selected: state.clicks,
    hints: targetHints(show), lastMove: last ? BoardView.parseMove(last) : null,
  });
  renderStatus(data, last);
  renderValue(data, show);
  renderMoves(data, show);
  $("variant").value = state.variant;
  $("position-text").value = data.position;
  $("move-list").value = state.moves.join(" ");
  $("undo").disabled = !state.moves.length;
  $("redo").disabled = !state.redo.length;
  $("review-game").disabled = !state.moves.length;
}

// the live region: who played what, then who is to move, or how the game ended
function renderStatus(data, last) {
  const name = (side) => (side === "white" ? "White" : "Black");
  const played = last ? `${name(data.to_move === "white" ? "black" : "white")} played ${last}. ` : "";
  const next = `${name(data.to_move)} to move (${data.phase}); ` +
    `in hand: White ${data.hands.white}, Black ${data.hands.black}`;
  $("status").textContent = data.over ? played.trim() : played + next;
  const over = $("over");
  over.hidden = !data.over;
  if (data.over) {
    const who = data.over.winner ? `${name(data.over.winner)} wins` : "Draw";
    over.textContent = `Game over: ${who} (${data.over.reason}).`;
  }
}

function renderValue(data, show) {
  const side = data.to_move === "white" ? "White" : "Black";
  const value = $("value");
  const plies = data.value && data.value.plies !== null ? " plies" : "";
  value.textContent = show ? `${side}: ${valueText(data.value, data.values_timed_out)}${plies}` : "";
  value.className = show && data.value ? data.value.result : "";
  value.dataset.result = data.value ? data.value.result : "";
  value.dataset.plies = data.value && data.value.plies !== null ? data.value.plies : "";
  value.title = show && data.value_error ? data.value_error : "";
  if (show && data.values_timed_out) value.textContent += " (the moves' values: not found in time)";
  if (show && data.searched) {  // no placement table: the moving phase's search answered
    const s = data.searched;
    value.textContent += ` (searched: ${s.nodes.toLocaleString("en")} nodes, ${s.seconds.toFixed(2)} s)`;
  }
  value.dataset.searched = data.searched ? data.searched.nodes : "";
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
}

function renderMoves(data, show) {
  const list = $("moves");
  list.replaceChildren();
  for (const move of data.moves) {
    const li = document.createElement("li");
    li.dataset.move = move.move;
    li.dataset.result = move.value ? move.value.result : "";
    li.dataset.plies = move.value && move.value.plies !== null ? move.value.plies : "";
    li.textContent = show ? `${move.move}  ${valueText(move.value, data.values_timed_out)}` : move.move;
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
}

function saveUrl() {
  const params = new URLSearchParams({ variant: state.variant });
  if (state.start) params.set("start", state.start);
  if (state.moves.length) params.set("moves", state.moves.join(" "));
  if ($("mode").value !== "analyse") params.set("mode", $("mode").value);
  if ($("strength").value !== "ultra") params.set("strength", $("strength").value);
  if ($("against").value !== "noisy:0.1") params.set("against", $("against").value);
  if ($("draw-rules").checked) params.set("draw_rules", "1");
  history.replaceState(null, "", `?${params}`);
}

function undo() {
  if (!state.data || !state.moves.length) return;
  const next = game();
  next.redo.push(next.moves.pop());
  // against the engine, back to the last position the human was to move in
  const mode = $("mode").value;
  const other = (side) => (side === "white" ? "black" : "white");
  const againstEngine = mode === "white" || mode === "black";
  if (againstEngine && other(state.data.to_move) !== mode && next.moves.length) {
    next.redo.push(next.moves.pop());
  }
  load(next);
}

function redo() {
  if (!state.redo.length) return;
  const next = game();
  next.moves.push(next.redo.pop());
  load(next);
}

// the game on the board reviewed with the tables (/api/review), in the panel below
async function review() {
  if (state.request) return askToWait();
  const request = begin("Reviewing…");
  let body;
  try {
    body = await api("/api/review", gameParams(game()), request);
  } catch (err) {
    failed(request, err, review, "review: ");
    return;
  }
  if (!isLatest(request)) return;
  idle();
  ReviewPanel.render($("review"), body, {
    title: `Review of the game on the board (${body.moves.length} plies)`,
    drawRules: $("draw-rules").checked,
  });
  $("review").scrollIntoView({ block: "nearest" });
}

// "Play a friend": creates a room (POST /api/rooms) and opens it as its first player.
// The room page shows the invite link to send, so it goes along in the fragment (which
// the room page drops from the address at once); the seat token stays in the fragment.
async function createRoom(event) {
  event.preventDefault();
  const color = document.querySelector('input[name="friend-color"]:checked').value;
  const body = JSON.stringify({ variant: $("friend-variant").value, color,
                                draw_rules: $("friend-draw-rules").checked });
  $("friend-create").disabled = true;
  $("friend-error").hidden = true;
  try {
    const response = await fetch("/api/rooms", {
      method: "POST", headers: { "content-type": "application/json" }, body,
    });
    const answer = await response.json().catch(() => ({}));
    if (!response.ok) throw new RequestError(answer.error || `server error ${response.status}`);
    // the path, not the answer's absolute link: behind a proxy the server may not know
    // the scheme and host its visitors use
    const room = encodeURIComponent(answer.room);
    location.assign(`/room/${room}#seat=${encodeURIComponent(answer.token)}` +
      `&invite=${encodeURIComponent(answer.invite_code)}`);
  } catch (err) {
    $("friend-error").textContent = err instanceof RequestError ? err.message
      : "cannot reach the server";
    $("friend-error").hidden = false;
  } finally {
    $("friend-create").disabled = false;
  }
}

function openFriendDialog() {
  if ([...$("friend-variant").options].some((o) => o.value === state.variant)) {
    $("friend-variant").value = state.variant;
  }
  $("friend-error").hidden = true;
  $("friend-dialog").showModal();
}

// the hint marks in the legend, drawn by BoardView as on the board
function drawLegend() {
  for (const slot of document.querySelectorAll("[data-mark]")) {
    slot.replaceChildren(BoardView.markIcon(slot.dataset.mark));
  }
}

// what the chosen engine does, in the one line its option carries, or the server's
// note when it plays without tables
function showStrength(note) {
  $("strength-note").textContent = note || $("strength").selectedOptions[0].title;
}

function listen() {
  const select = $("variant");
  select.addEventListener("change", () => load({ variant: select.value, start: "", moves: [], redo: [] }));
  $("mode").addEventListener("change", () => load(game()));
  $("strength").addEventListener("change", () => { showStrength(); saveUrl(); });
  $("against").addEventListener("change", saveUrl);
  $("variant").addEventListener("change", () => showStrength());
  $("draw-rules").addEventListener("change", () => load(game()));
  $("show-values").addEventListener("change", () => { if (state.data) render(); });
  $("undo").addEventListener("click", undo);
  $("redo").addEventListener("click", redo);
  $("restart").addEventListener("click", () => load({ ...game(), moves: [], redo: [] }));
  $("copy-link").addEventListener("click", () => navigator.clipboard.writeText(location.href));
  $("retry").addEventListener("click", () => state.retry());
  $("review-game").addEventListener("click", review);
  $("play-friend").addEventListener("click", openFriendDialog);
  $("friend-form").addEventListener("submit", createRoom);
  $("friend-cancel").addEventListener("click", () => $("friend-dialog").close());
  $("position-text").addEventListener("change", (e) => {
    load({ ...game(), start: e.target.value.trim(), moves: [], redo: [] });
  });
  $("move-list").addEventListener("change", (e) => {
    load({ ...game(), moves: e.target.value.split(/\s+/).filter(Boolean), redo: [] });
  });
}

// the variants (those served first; the others play without values), then the game the
// address names
async function start() {
  const request = begin("Loading…");
  let variants, playable;
  try {
    ({ variants, playable } = await api("/api/variants", {}, request));
  } catch (err) {
    failed(request, err, start);
    return;
  }
  idle();
  const served = new Set(variants.map((v) => v.name));
  const unserved = playable.filter((v) => !served.has(v.name));
  $("variant").replaceChildren(...variants.map((v) => new Option(v.name, v.name)),
    ...unserved.map((v) => new Option(`${v.name} (no tables)`, v.name)));
  $("friend-variant").replaceChildren(...playable.map((v) => new Option(v.name, v.name)));
  for (const v of [...variants, ...unserved]) state.variants[v.name] = v;
  if (!variants.length) {
    showError("This server holds no tables (morris serve --db FILE): no values, and the "
      + "engine searches a few plies instead of playing perfectly.");
  }
  const params = new URLSearchParams(location.search);
  const wanted = params.get("variant");
  state.variant = state.variants[wanted] ? wanted : (variants[0] || playable[0]).name;
  for (const id of ["mode", "strength", "against"]) {
    const options = [...$(id).options].map((o) => o.value);
    if (options.includes(params.get(id))) $(id).value = params.get(id);
  }
  showStrength();
  $("draw-rules").checked = params.get("draw_rules") === "1";
  const linked = {
    variant: state.variant, start: params.get("start") || "",
    moves: (params.get("moves") || "").split(/\s+/).filter(Boolean), redo: [],
  };
  const err = await load(linked);
  if (err && !err.transient && (linked.start || linked.moves.length)) {
    await load({ ...linked, start: "", moves: [] });  // a link that does not parse: the empty board
  }
  if (wanted && !state.variants[wanted] && !state.request) showError(`no variant ${wanted} here`);
}

drawLegend();
listen();
start();
