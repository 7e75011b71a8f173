// The room page: a game against a friend, live (the server's side is cli/web/live.py, the
// protocol docs/live.md). Who you are comes from the address's fragment, which never
// reaches the server's logs: #seat=TOKEN is a player's link, #invite=CODE takes the
// free seat (then the address becomes the seat's link), nothing is a watcher. A seat's
// token is kept in localStorage per room, so a reload or a later visit keeps the seat;
// joining sends a token of the page's own, stored first, so a join whose answer was lost
// is sent again (now, or at the next load) and gets the seat back.
//
// The page is a view of the last state the server sent over the WebSocket: a click on
// the board only completes a move from the state's legal moves and sends it; the board
// changes when the server's event comes back (the server is the only referee). A move
// has an id and stays pending until the server acknowledges or refuses it; after a
// reconnect the pending moves are sent again with the same ids, and the server applies
// an id once. The connection is watched (a ping when quiet) and reopened with backoff.
// No values are shown during play; after a game the review (review.js) shows them all.
"use strict";

const RECONNECT_MS = 500;        // the first retry's delay, doubled each time...
const RECONNECT_MAX_MS = 15000;  // ...up to this
const PING_MS = 20000;           // a connection is checked this often...
const PONG_MS = 8000;            // ...and taken for dead without an answer this long
const STORAGE = "morris-room:";  // localStorage key prefix: {token, seat, invite, pending} per room
const JOIN_TRIES = 5;            // a join lost to the network or a 5xx is sent again...
const JOIN_RETRY_MS = 400;       // ...after this delay, doubled each time

const room = {
  id: decodeURIComponent(location.pathname.split("/").pop()),
  token: null,        // this browser's seat token, or null: watching
  invite: null,       // the invite link to show while waiting (the host's, from creating)
  seat: null,         // "host" | "guest" | null, as the server's welcome says
  note: "",           // a line on the link the page was opened with, where it did not work
  variants: {},       // every playable variant by name (board geometry)
  data: null,         // the last state the server sent
  received: 0,        // performance.now() when it came (to run the clocks)
  view: null,         // the BoardView
  clicks: [],         // points clicked so far for the next move
  pending: new Map(), // move id -> move text, sent but neither acknowledged nor refused
  socket: null,
  attempts: 0,        // reconnects since the last welcome
  timers: {},         // reconnect, ping, pong
  fatal: false,       // the server said the room does not exist: no reconnecting
  presenceKnown: false, // whether the friend's presence shown is the server's latest word
  reviewAuto: null,   // the game whose review was opened by itself when it ended
  reviews: new Map(), // game number -> its review (a finished game's review never changes)
  reviewShown: null,  // the game number reviewed on the page
};
const $ = (id) => document.getElementById(id);
const other = (color) => (color === "white" ? "black" : "white");
const side = (color) => (color === "white" ? "White" : "Black");

// -- who is this browser ----------------------------------------------------------------

function stored() {
  try {
    return JSON.parse(localStorage.getItem(STORAGE + room.id)) || {};
  } catch {
    return {};  // storage off (or garbage in it): the seat lasts as long as the page
  }
}

function store(entry) {
  try {
    localStorage.setItem(STORAGE + room.id, JSON.stringify({ ...stored(), ...entry }));
  } catch {
    // as above
  }
}

function forgetSeat() {
  try {
    localStorage.removeItem(STORAGE + room.id);
  } catch {
    // as above
  }
}

// a seat secret of our own for joining: 24 random bytes, base64url (32 characters)
function newSeatToken() {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_");
}

// the seat from the fragment (a seat's link; the creator's also carries the invite to
// show), from an invite (joining takes the guest seat), or from storage; else watching
async function identify() {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const saved = stored();
  room.invite = saved.invite || null;
  if (fragment.get("seat")) {
    room.token = fragment.get("seat");
    if (fragment.get("invite")) {  // the creator's first visit
      room.invite = inviteLink(fragment.get("invite"));
      store({ token: room.token, seat: "host", invite: room.invite });
    } else {
      store({ token: room.token });
    }
    history.replaceState(null, "", `#seat=${encodeURIComponent(room.token)}`);
  } else if (fragment.get("invite") && saved.seat === "host") {
    // the creator trying the invite link: joining would take the friend's seat too
    room.token = saved.token;
    room.note = "That link is for your friend: send it, do not open it here.";
    history.replaceState(null, "", `#seat=${encodeURIComponent(room.token)}`);
  } else if (fragment.get("invite")) {
    await join(fragment.get("invite"), saved.token, saved.pending);
  } else {
    room.token = saved.token || null;
  }
}

function inviteLink(code) {
  return `${location.origin}/room/${encodeURIComponent(room.id)}#invite=${encodeURIComponent(code)}`;
}

// join with a seat token of our own, stored before it is sent: the server gives the
// seat to that token once, and answers a join again with it as the first, so a join
// whose answer was lost is sent again (now, or by a reload: `pending` is the token of
// a join not yet answered) and gets the seat back
async function join(code, savedToken, pending) {
  const token = pending || newSeatToken();
  store({ pending: token });
  let response, body = {};
  for (let tries = 1; ; tries++) {
    response = null;
    try {
      response = await fetch(`/api/rooms/${encodeURIComponent(room.id)}/join`, {
        method: "POST", headers: { "content-type": "application/json" },
        body: JSON.stringify({ invite: code, token }),
      });
      body = await response.json().catch(() => ({}));  // a proxy's error page: no body
      if (response.ok && !body.token) response = null;  // the answer cut short
    } catch {
      // the network: no answer, or half of one
    }
    if ((response && response.status < 500) || tries === JOIN_TRIES) break;
    await new Promise((done) => setTimeout(done, JOIN_RETRY_MS * 2 ** (tries - 1)));
  }
  if (!response || response.status >= 500) {
    room.token = savedToken || null;
    room.note = "Cannot reach the server to join: reload the page to try again.";
    return;
  }
  store({ pending: undefined });  // answered: the token is the seat's, or no use
  if (response.ok) {
    room.token = body.token;
    store({ token: body.token, seat: "guest" });
    history.replaceState(null, "", `#seat=${encodeURIComponent(body.token)}`);
  } else if (savedToken) {  // this browser joined before: the seat is its own
    room.token = savedToken;
    history.replaceState(null, "", `#seat=${encodeURIComponent(savedToken)}`);
  } else {
    room.note = response.status === 409 ? "The seat is taken: the invite link only shows the game now."
      : `Not joined: ${body.error || `server error ${response.status}`}.`;
    history.replaceState(null, "", location.pathname);  // the watch link
  }
}

// the colour this browser plays in the game shown (colours swap at each rematch)
function myColor() {
  const data = room.data;
  if (!room.seat || !data) return null;
  return data.seats.white.seat === room.seat ? "white" : "black";
}

// -- the connection ---------------------------------------------------------------------

function connect() {
  clearTimeout(room.timers.reconnect);
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const socket = new WebSocket(`${scheme}//${location.host}/ws/rooms/${encodeURIComponent(room.id)}`);
  room.socket = socket;
  socket.onopen = () => {
    send({ type: "hello", version: room.data ? room.data.version : 0,
           ...(room.token ? { token: room.token } : {}) });
    // the server reads in order: the moves come after the hello, with their old ids
    for (const [id, move] of room.pending) send({ type: "move", move, id });
    heartbeat();
  };
  socket.onmessage = (event) => {
    if (socket !== room.socket) return;
    clearTimeout(room.timers.pong);  // any message shows the connection lives
    receive(JSON.parse(event.data));
  };
  socket.onclose = () => {
    if (socket === room.socket) lost();
  };
}

// leaving the page for another in the same tab: the back/forward cache may keep this page,
// socket and all, so the friend would see this player online; close it, and open a new
// one (hello with the version: the missed events) if the page is shown again
function hidden() {
  const socket = room.socket;
  room.socket = null;  // its close is no loss to recover from
  clearInterval(room.timers.ping);
  clearTimeout(room.timers.pong);
  clearTimeout(room.timers.reconnect);
  if (socket) socket.close();
}

function send(message) {
  if (!room.socket || room.socket.readyState !== WebSocket.OPEN) return false;
  room.socket.send(JSON.stringify(message));
  return true;
}

// a ping when quiet: a connection that died without a close (a phone that slept, a
// proxy that dropped it) would otherwise look open for minutes
function heartbeat() {
  clearInterval(room.timers.ping);
  room.timers.ping = setInterval(() => {
    if (!send({ type: "ping" })) return;
    clearTimeout(room.timers.pong);
    room.timers.pong = setTimeout(() => {
      const dead = room.socket;
      room.socket = null;  // its close, whenever it comes, is no news
      dead.close();
      lost();
    }, PONG_MS);
  }, PING_MS);
}

// the connection is gone: try again after a delay that doubles, with jitter so that
// many clients of a restarted server do not all come back at once
function lost() {
  clearInterval(room.timers.ping);
  clearTimeout(room.timers.pong);
  room.socket = null;
  document.body.dataset.connected = "0";
  room.presenceKnown = false;
  if (room.data) render();  // the friend's presence unknown, a move waiting to be sent
  if (room.fatal) return;
  const delay = Math.min(RECONNECT_MAX_MS, RECONNECT_MS * 2 ** room.attempts);
  room.attempts += 1;
  showConnection("Connection lost: reconnecting…");
  room.timers.reconnect = setTimeout(connect, delay * (0.5 + Math.random() / 2));
}

function receive(message) {
  switch (message.type) {
    case "welcome":
      room.attempts = 0;
      if (room.token && !message.seat) {  // a seat link this room does not know
        forgetSeat();
        room.token = null;
        room.note = "This seat link is not valid for this room.";
      }
      room.seat = message.seat;
      if (message.seat) store({ token: room.token, seat: message.seat });
      document.body.dataset.connected = "1";
      showConnection("");
      break;
    case "events":
    case "state":
      show(message.state, message.events || []);
      break;
    case "presence":
      if (!room.data) break;
      for (const color of ["white", "black"]) room.data.seats[color].connected = message.connected[color];
      room.presenceKnown = true;
      renderPlayers();
      break;
    case "ack":
      room.pending.delete(message.id);
      if (!room.pending.size && room.clicks.length) room.clicks = [];  // its event came first
      if (room.data) renderBoard();
      renderPending();
      break;
    case "refused":
      if (message.id !== null) room.pending.delete(message.id);
      room.clicks = [];
      showError(message.error);
      if (room.data) render();
      break;
    case "error":  // no such room: reconnecting will not make one
      room.fatal = true;
      showConnection("");
      showError(message.error);
      $("status").textContent = "";
      break;
    default:  // pong: only shows the connection lives
  }
}

// -- acting -----------------------------------------------------------------------------

// a fresh move id; crypto.randomUUID needs a secure context, getRandomValues does not
function newId() {
  return Array.from(crypto.getRandomValues(new Uint8Array(12)),
    (b) => b.toString(16).padStart(2, "0")).join("");
}

function act(type) {
  showError("");
  if (!send({ type })) showError("Not connected: wait for the connection to come back.");
}

function canPlay() {
  const data = room.data;
  return data && data.status === "playing" && data.to_move === myColor();
}

function onPoint(name) {
  if (!room.seat) return;
  if (room.pending.size) return showError("Wait: your move is on its way to the server.");
  if (!canPlay()) {
    const data = room.data;
    if (data && data.status === "playing") showError("It is your friend's turn.");
    return;
  }
  showError("");
  const step = BoardView.click(room.data.legal, room.clicks, name);
  if (step.move) {
    const id = newId();
    room.pending.set(id, step.move.move);
    room.clicks = BoardView.sequence(step.move);  // shown chosen until the server answers
    send({ type: "move", move: step.move.move, id });  // or, when closed, after reconnecting
  } else {
    room.clicks = step.clicks;
  }
  renderBoard();
  renderPending();
}

// -- showing ----------------------------------------------------------------------------

function show(state, events) {
  const first = !room.data;
  room.data = state;
  room.received = performance.now();
  if (!room.pending.size) room.clicks = [];
  if (events.length || first) showError("");
  if (!room.view && room.variants[state.variant]) {
    room.view = new BoardView($("board"), room.variants[state.variant], { onPoint });
  }
  render();
  document.body.dataset.version = state.version;
}

function render() {
  if (!room.data) return;
  renderBoard();
  renderPending();
  renderStatus();
  renderPlayers();
  renderActions();
  renderInvite();
  renderMoves();
  renderReview();
}

function renderBoard() {
  const data = room.data;
  if (!room.view || !data) return;
  const last = data.moves.at(-1);
  const hints = new Map();
  if (canPlay() && !room.pending.size) {  // where the next click can go; never a value
    for (const point of BoardView.nextPoints(data.legal, room.clicks).keys()) hints.set(point, "target");
  }
  const waiting = [...room.pending.values()].at(-1);
  room.view.render({
    white: data.white, black: data.black, selected: room.clicks, hints,
    lastMove: last ? BoardView.parseMove(last) : null,
    pending: waiting ? { ...BoardView.parseMove(waiting), color: myColor() } : null,
  });
}

// a move sent (or to be sent) that the server has not yet acknowledged
function renderPending() {
  const waiting = [...room.pending.values()];
  const line = $("pending");
  line.hidden = !waiting.length;
  line.textContent = !waiting.length ? ""
    : room.socket && room.socket.readyState === WebSocket.OPEN ? `Sending ${waiting.join(", ")}…`
    : `Your move ${waiting.join(", ")} will be sent when reconnected.`;
}

// the live region: the last move and whose turn, the offers, the end
function renderStatus() {
  const data = room.data;
  const mine = myColor();
  $("variant-name").textContent = `${data.variant}, game ${data.game}` +
    (data.draw_rules ? ", draw rules on" : "");
  $("me").textContent = room.seat ? `You play ${side(mine)}.` : "You are watching.";
  if (room.note) $("me").textContent += ` ${room.note}`;
  const last = data.moves.at(-1);
  const played = last ? `${side(other(data.to_move))} played ${last}. ` : "";
  let status = played;
  if (data.status === "waiting") {
    status = room.seat ? "Waiting for your friend to join." : "Waiting for the second player.";
  } else if (data.status === "playing") {
    status += `${side(data.to_move)} to move (${data.phase})` +
      (data.to_move === mine ? ": your move." : ".");
  }
  $("status").textContent = status.trim();
  document.title = `${canPlay() ? "Your move: " : ""}Morris: play a friend`;
  $("offer").textContent = offerText();
  $("offer").hidden = !$("offer").textContent;
  $("over").hidden = !data.over;
  if (data.over) $("over").textContent = endText(data.over, mine);
}

// how a game ended, in a sentence, for the player of `mine` (null: a watcher): "You win:
// Black resigned.", "You lose: you resigned.", "White wins: Black resigned."
function endText(over, mine) {
  if (over.reason === "draw agreed") return "Draw by agreement.";
  const winner = over.winner;
  const head = !winner ? "Draw" : !mine ? `${side(winner)} wins`
    : winner === mine ? "You win" : "You lose";
  const loser = winner && other(winner);
  const who = (color) => (color === mine ? "you" : side(color));
  const resigned = over.reason.match(/^(white|black) resigned$/);
  const plies = over.reason.match(/^(\d+) moving plies without capture$/);
  if (resigned) return `${head}: ${who(resigned[1])} resigned.`;
  if (plies) return `${head}: ${plies[1]} moving plies without a capture.`;
  if (over.reason === "line of three" && winner) {
    return mine ? `${head}: ${who(winner)} made a line of three.` : `${head} with a line of three.`;
  }
  const why = {
    "fewer than 3 stones": loser && `${who(loser)} ${loser === mine ? "have" : "has"} fewer than 3 stones left`,
    "no legal move": loser && `${who(loser)} cannot move`,
    "full board": "the board is full",
    "threefold repetition": "the same position came up a third time",
  }[over.reason] || over.reason;
  return `${head}: ${why}.`;
}

function offerText() {
  const data = room.data;
  const mine = myColor();
  if (data.draw_offer) {
    if (data.draw_offer === mine) return "You offered a draw; waiting for your friend's answer.";
    return mine ? "Your friend offers a draw." : `${side(data.draw_offer)} offers a draw.`;
  }
  if (data.rematch_offer) {
    if (data.rematch_offer === room.seat) return "You asked for a rematch; waiting for your friend.";
    if (room.seat) return "Your friend asks for a rematch.";
    const color = data.seats.white.seat === data.rematch_offer ? "white" : "black";
    return `${side(color)} asks for a rematch.`;
  }
  return "";
}

function renderPlayers() {
  const data = room.data;
  for (const color of ["white", "black"]) {
    const row = $(`player-${color}`);
    const seat = data.seats[color];
    const toMove = data.status === "playing" && data.to_move === color;
    row.classList.toggle("to-move", toMove);
    row.querySelector("th").textContent = side(color) + (toMove ? " (to move)" : "");
    // while this page is not connected, nobody's presence is known
    const known = room.presenceKnown || seat.seat === room.seat;
    let who;
    if (seat.seat === room.seat) who = "you";
    else who = `${room.seat ? "your friend" : `the ${seat.seat}`}, ` +
      (!seat.taken ? "not joined yet" : !known ? "presence unknown" : seat.connected ? "online" : "offline");
    const cell = row.querySelector(".who");
    cell.textContent = who;
    cell.dataset.connected = !known ? "?" : seat.connected ? "1" : "0";
    cell.title = known ? "" : "not connected to the server";
    row.querySelector(".hand").textContent = data.hands[color];
  }
  renderClocks();
  const counter = $("counter");
  counter.hidden = !data.draw_rules;
  counter.textContent = `Moving plies without a capture: ${data.quiet_plies} of ${data.move_limit}` +
    " (then a draw; so is a third repetition).";
}

// each side's time used; the side to move's runs from turn_since on the server's clock
function renderClocks() {
  const data = room.data;
  if (!data) return;
  const now = data.server_time + (performance.now() - room.received);
  for (const color of ["white", "black"]) {
    let ms = data.elapsed[color];
    if (data.status === "playing" && data.turn_since !== null && data.to_move === color) {
      ms += Math.max(0, now - data.turn_since);
    }
    $(`player-${color}`).querySelector(".clock").textContent = clock(ms);
  }
}

function clock(ms) {
  const s = Math.floor(ms / 1000);
  const mmss = `${Math.floor(s / 60) % 60}:${String(s % 60).padStart(2, "0")}`;
  return s >= 3600 ? `${Math.floor(s / 3600)}:${mmss.padStart(5, "0")}` : mmss;
}

// the buttons: only a player's, each when it can be used
function renderActions() {
  const data = room.data;
  const mine = myColor();
  const playing = data.status === "playing";
  $("actions").hidden = !room.seat || data.status === "waiting";
  const offeredToMe = playing && data.draw_offer === other(mine);
  $("offer-draw").hidden = !playing || offeredToMe;
  $("offer-draw").disabled = data.draw_offer === mine;
  $("offer-draw").textContent = data.draw_offer === mine ? "Draw offered" : "Offer a draw";
  $("accept-draw").hidden = $("decline-draw").hidden = !offeredToMe;
  $("resign").hidden = !playing || !$("resign-confirm").hidden;
  if (!playing) confirmResign(false);
  const rematch = $("rematch");
  rematch.hidden = data.status !== "over";
  rematch.disabled = data.rematch_offer === room.seat;
  rematch.textContent = data.rematch_offer === room.seat ? "Rematch asked"
    : data.rematch_offer ? "Accept the rematch" : "Rematch";
}

function confirmResign(asking) {
  $("resign-confirm").hidden = !asking;
  $("resign").hidden = asking || !(room.data && room.data.status === "playing");
  if (asking) $("resign-no").focus();
}

// while waiting for the friend: the links to send (the invite only where it is known)
function renderInvite() {
  const waiting = room.data.status === "waiting";
  $("invite").hidden = !waiting;
  if (!waiting) return;
  $("watch-link").value = `${location.origin}/room/${encodeURIComponent(room.id)}`;
  const host = room.seat === "host";
  $("invite-row").hidden = !(host && room.invite);
  $("invite-link").value = room.invite || "";
  $("invite-unknown").hidden = !host || Boolean(room.invite);
  $("invite-text").hidden = !host;
}

function renderMoves() {
  const list = $("moves");
  list.replaceChildren(...room.data.moves.map((move) => {
    const li = document.createElement("li");
    li.textContent = move;
    return li;
  }));
}

async function copy(input) {
  try {
    await navigator.clipboard.writeText(input.value);
  } catch {  // no clipboard API (not a secure context): the old way
    input.select();
    document.execCommand("copy");
  }
  $("copied").textContent = "Copied.";
  setTimeout(() => { $("copied").textContent = ""; }, 3000);
}

function showError(message) {
  $("error").hidden = !message;
  $("error").textContent = message;
}

function showConnection(message) {
  $("connection").hidden = !message;
  $("connection").textContent = message;
}

// -- the review of a finished game ------------------------------------------------------

// the finished games to choose from (the current one too, once over), newest first
function reviewable() {
  const data = room.data;
  const games = data.finished.map((g) => ({ number: g.game, white: g.white, over: g.over }));
  if (data.over) games.push({ number: data.game, white: data.seats.white.seat, over: data.over });
  return games.reverse();
}

// a button per finished game (the earlier ones stay reachable during a rematch); a game
// that has just ended opens its review by itself
function renderReview() {
  const data = room.data;
  const games = reviewable();
  $("review-area").hidden = !games.length;
  const list = $("review-games");
  const key = games.map((g) => g.number).join();
  if (list.dataset.games !== key) {
    list.dataset.games = key;
    list.replaceChildren(...games.map((g) => {
      const button = document.createElement("button");
      button.type = "button";
      button.dataset.game = g.number;
      button.textContent = `Review game ${g.number}`;
      button.addEventListener("click", () => loadReview(g.number));
      const li = document.createElement("li");
      li.append(button, ` ${gameTitle(g)}`);
      return li;
    }));
  }
  if (data.over && room.reviewAuto !== data.game) {
    room.reviewAuto = data.game;
    loadReview(data.game);
  } else if (!data.over && room.reviewShown !== null && room.reviewAuto !== -data.game) {
    room.reviewAuto = -data.game;  // a new game: its board first, the review on request
    room.reviewShown = null;
    $("review").hidden = true;
    delete document.body.dataset.reviewed;
  }
  for (const button of list.querySelectorAll("button")) {
    button.setAttribute("aria-pressed", String(Number(button.dataset.game) === room.reviewShown));
  }
}

function gameTitle(game) {
  const mine = room.seat ? (game.white === room.seat ? "white" : "black") : null;
  return endText(game.over, mine);
}

async function loadReview(number) {
  if (room.reviewShown === number) return;
  room.reviewShown = number;
  let review = room.reviews.get(number);
  if (!review) {
    $("review-status").textContent = "Loading the review…";
    try {
      const response = await fetch(`/api/rooms/${encodeURIComponent(room.id)}/review?game=${number}`);
      const body = await response.json();
      if (!response.ok) throw new Error(body.error || `server error ${response.status}`);
      review = body;
    } catch (err) {
      room.reviewShown = null;
      $("review-status").textContent = `No review: ${err.message}`;
      return;
    }
    room.reviews.set(number, review);
  }
  if (room.reviewShown !== number) return;  // another game was chosen meanwhile
  $("review-status").textContent = "";
  const game = reviewable().find((g) => g.number === number);
  ReviewPanel.render($("review"), review, {
    title: `Review of game ${number} — ${gameTitle(game)}`, drawRules: room.data.draw_rules,
  });
  document.body.dataset.reviewed = number;
  renderReview();  // the pressed button
}

// -- start ------------------------------------------------------------------------------

function listen() {
  $("offer-draw").addEventListener("click", () => act("offer_draw"));
  $("accept-draw").addEventListener("click", () => act("accept_draw"));
  $("decline-draw").addEventListener("click", () => act("decline_draw"));
  $("resign").addEventListener("click", () => confirmResign(true));
  $("resign-no").addEventListener("click", () => { confirmResign(false); $("resign").focus(); });
  $("resign-yes").addEventListener("click", () => { confirmResign(false); act("resign"); });
  $("rematch").addEventListener("click", () => act("rematch"));
  for (const button of document.querySelectorAll("[data-copy]")) {
    button.addEventListener("click", () => copy($(button.dataset.copy)));
  }
  // another link to this room pasted in this tab changes only the fragment: start afresh
  window.addEventListener("hashchange", () => location.reload());
  setInterval(renderClocks, 500);
}

async function start() {
  listen();
  const [variants] = await Promise.all([
    fetch("/api/variants").then((r) => r.json()).catch(() => ({ playable: [] })),
    identify(),
  ]);
  for (const v of variants.playable) room.variants[v.name] = v;
  if (!variants.playable.length) showError("Cannot load the board from the server: reload the page.");
  connect();
  // back online, or back to a page a phone put to sleep: reconnect now, not at backoff's end
  const now = () => { if (!room.socket && !room.fatal) connect(); };
  window.addEventListener("online", now);
  document.addEventListener("visibilitychange", () => { if (!document.hidden) now(); });
  window.addEventListener("pagehide", hidden);
  window.addEventListener("pageshow", (event) => { if (event.persisted) now(); });
}

start();
