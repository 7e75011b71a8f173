"""Play a friend by link, in real browsers: three headless Chromiums of their own (own
storage each) on one server. A creates a Three Men's Morris room through the analysis
board's "Play a friend", a watcher opens the watch link, B opens the invite link; they
play by clicks (and one move by keys) while A reloads and later comes back by the plain
room link (the seat kept, no move lost), leaves the page for another (the back/forward
cache: offline, then back and caught up), and B's connection drops the moment it sends a
move (the move shown waiting, the friend's presence unknown; then sent again with its
id, applied once). The game ends on a line of three, said as a person would; the review
(chart, turning points, marks) is checked against the API, a chart point opens that
position on the analysis board, whose Review button reviews it. A rematch swaps the
colours, game 1's review still reachable; a draw offer is declined; A resigns after
confirming. The watcher sees every move and no buttons, also at phone size (the players'
table above the board). A join whose answer is lost gets the seat by its own token on a
reload. ``MORRIS_SCREENSHOT=FILE`` saves docs' pictures beside FILE: room-review.png (the
finished game's review) and room-phone.png (the watcher's phone)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from urllib.parse import parse_qs, urlparse
from urllib.request import urlopen

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
from browser import chromium, new_browser, serving  # noqa: E402, F401 (chromium: a fixture)

from morris_cli.web.app import create_app  # noqa: E402

try:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select, WebDriverWait
except ImportError:  # the chromium fixture skips the test, or fails it under CI
    pass

# Three Men's Morris: White gives the win away (a1), Black keeps the draw, White throws it
# (a2), Black throws the win back (c1), a slower win, a quicker loss, then White's line
# a2-b2-c2 by a move; and who plays each ply (A is White)
GAME = ["a1", "b1", "a2", "c1", "c2", "a3", "a1-b2"]
MARKS = ["win given away", None, "draw turned into loss", "win turned into loss",
         "slower win", "quicker loss", None]


@pytest.fixture(scope="module")
def server(table_paths, tmp_path_factory):
    rooms = tmp_path_factory.mktemp("rooms") / "rooms.sqlite"
    with serving(create_app({"three": table_paths["three"]}, rooms=rooms)) as url:
        yield url


@pytest.fixture(scope="module")
def browsers():
    """A, B and the watcher C, each a Chromium of its own."""
    drivers = []
    try:
        for _ in range(3):
            drivers.append(new_browser())
        yield drivers
    finally:
        for driver in drivers:
            driver.quit()


def get_json(url: str) -> dict:
    with urlopen(url, timeout=10) as answer:
        return json.load(answer)


def wait(browser, condition, what: str = "", seconds: float = 20):
    return WebDriverWait(browser, seconds).until(lambda b: condition(b), f"waited for {what}")


def version(browser) -> int:
    return int(browser.execute_script("return document.body.dataset.version || -1"))


def at_version(v: int, *browsers) -> None:
    """Wait until each browser shows the room's state of version ``v``."""
    for b in browsers:
        wait(b, lambda b: version(b) >= v, f"version {v}")
        assert version(b) == v


def board_ready(browser) -> None:
    """Wait until the analysis board has drawn the answer to its last request."""
    wait(browser, lambda b: b.execute_script("return document.body.dataset.ready") == "1",
         "the analysis board")


def reviewed(browser, game: int) -> None:
    """Wait until the room page shows the review of game ``game``."""
    wait(browser, lambda b: b.execute_script("return document.body.dataset.reviewed") == str(game),
         f"the review of game {game}")


def text(browser, element_id: str) -> str:
    return browser.find_element(By.ID, element_id).text


def moves(browser) -> list[str]:
    return [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#moves li")]


def click(browser, point: str) -> None:
    browser.find_element(By.CSS_SELECTOR, f'[data-point="{point}"]').click()


def hints(browser) -> list[str]:
    marks = browser.find_elements(By.CSS_SELECTOR, "#board .hint")
    return [mark.get_attribute("class") for mark in marks]


def shown(browser, element_id: str) -> bool:
    return browser.find_element(By.ID, element_id).is_displayed()


def clock(ms: int) -> str:
    s = ms // 1000
    return f"{s // 60}:{s % 60:02d}"


def picture(browser, name: str, width: int | None = None) -> None:
    """Saves the page as ``name`` beside MORRIS_SCREENSHOT's file, if it is set; with
    ``width``, the whole page at that width (as tall as its content)."""
    target = os.environ.get("MORRIS_SCREENSHOT")
    if not target:
        return
    if width is None:
        browser.save_screenshot(str(Path(target).with_name(name)))
        return
    metrics = {"width": width, "height": 600, "deviceScaleFactor": 1, "mobile": False}
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
    try:
        metrics["height"] = browser.execute_script("return document.body.scrollHeight") + 16
        browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
        browser.save_screenshot(str(Path(target).with_name(name)))
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def review_games(browser) -> list[str]:
    """The games the room page offers to review, as their numbers."""
    return [b.get_attribute("data-game")
            for b in browser.find_elements(By.CSS_SELECTOR, "#review-games button")]


def review_shown(browser) -> dict:
    """What the review panel shows: each move's row and each chart point."""
    rows = browser.find_elements(By.CSS_SELECTOR, "#review tbody tr")
    return {
        "marks": [r.get_attribute("data-mark") or None for r in rows],
        "before": [r.get_attribute("data-before") for r in rows],
        "after": [r.get_attribute("data-after") for r in rows],
        "chart": [int(p.get_attribute("data-white")) for p in
                  browser.find_elements(By.CSS_SELECTOR, "#review .review-chart .point")],
        "turns": [int(li.get_attribute("data-ply")) for li in
                  browser.find_elements(By.CSS_SELECTOR, "#review .review-turns li")],
    }


def review_expected(review: dict) -> dict:
    return {
        "marks": [p["mark"] for p in review["plies"]],
        "before": [p["before"]["result"] for p in review["plies"]],
        "after": [p["after"]["result"] for p in review["plies"]],
        "chart": [p["white"] for p in review["chart"]],
        "turns": review["turning_points"],
    }


def test_two_friends_play_by_link_with_a_watcher_and_review_the_game(server, browsers):
    a, b, c = browsers
    # A creates the room on the analysis board: Three Men's Morris, A starts
    a.get(f"{server}/?variant=three")
    board_ready(a)
    a.find_element(By.ID, "play-friend").click()
    Select(a.find_element(By.ID, "friend-variant")).select_by_value("three")
    assert a.find_element(By.CSS_SELECTOR, 'input[value="white"]').is_selected()
    assert a.find_element(By.ID, "friend-draw-rules").is_selected()
    a.find_element(By.ID, "friend-create").click()
    wait(a, lambda a: "/room/" in a.current_url and version(a) == 0, "the room page")
    room = urlparse(a.current_url).path.rsplit("/", 1)[1]
    assert re.fullmatch(r"seat=[\w-]+", urlparse(a.current_url).fragment)  # invite dropped
    assert text(a, "me") == "You play White."
    assert text(a, "status") == "Waiting for your friend to join."
    invite = a.find_element(By.ID, "invite-link").get_attribute("value")
    watch = a.find_element(By.ID, "watch-link").get_attribute("value")
    assert invite.startswith(f"{server}/room/{room}#invite=") and watch == f"{server}/room/{room}"

    # the watcher comes first, then the friend takes the seat by the invite link
    c.get(watch)
    at_version(0, c)
    assert text(c, "me") == "You are watching." and not shown(c, "actions")
    b.get(invite)
    at_version(1, a, b, c)
    assert urlparse(b.current_url).fragment.startswith("seat=")
    assert text(b, "me") == "You play Black."
    assert not shown(a, "invite") and shown(a, "actions") and not shown(c, "actions")
    assert text(a, "status") == "White to move (placement): your move."
    assert text(b, "status") == "White to move (placement)."
    wait(b, lambda b: "your friend, online" in text(b, "player-white"), "A online")
    assert "Moving plies without a capture: 0 of 100" in text(a, "counter")

    # ply 1; a click out of turn is answered, not sent
    click(b, "b2")
    assert text(b, "error") == "It is your friend's turn."
    click(a, "a1")
    at_version(2, a, b, c)
    assert text(b, "status") == "White played a1. Black to move (placement): your move."
    click(b, "b1")
    at_version(3, a, b, c)
    click(a, "a2")
    at_version(4, a, b, c)

    # A reloads: the fragment keeps the seat
    a.refresh()
    at_version(4, a)
    assert text(a, "me") == "You play White." and moves(a) == GAME[:3]
    # B plays by keys while A comes back later by the plain room link: storage keeps the seat
    a.get(watch)
    b.find_element(By.CSS_SELECTOR, '[data-point="c1"]').send_keys(Keys.ENTER)
    at_version(5, a, b, c)
    assert text(a, "me") == "You play White." and moves(a) == GAME[:4]
    click(a, "c2")
    at_version(6, a, b, c)

    # A leaves for another page in the tab (the back/forward cache keeps this one): its
    # socket closes, so B sees A offline; back again, it reconnects and catches up below
    a.execute_script('window.dispatchEvent(new PageTransitionEvent("pagehide", {persisted: true}))')
    wait(b, lambda b: "your friend, offline" in text(b, "player-white"), "A offline")

    # B's connection drops as it sends its move, and stays down a while: the move shows
    # as waiting to be sent, its stone faint, A's presence unknown; reconnected, the move
    # is sent again with its id and applied once
    b.execute_script("""
        const line = document.getElementById("connection");
        window.connectionSaid = [];
        new MutationObserver(() => window.connectionSaid.push(line.textContent))
          .observe(line, { childList: true, characterData: true, subtree: true });
        window.realConnect = connect;
        connect = () => {};  // no reconnecting until the test says so
        room.socket.close();
        document.querySelector('[data-point="a3"]').dispatchEvent(new MouseEvent("click"));""")
    wait(b, lambda b: shown(b, "pending"), "the move waiting")
    assert text(b, "pending") == "Your move a3 will be sent when reconnected."
    assert b.find_elements(By.CSS_SELECTOR, '[data-pending="a3"].stone.black.pending')
    white = b.find_element(By.CSS_SELECTOR, "#player-white .who")
    assert white.text == "your friend, presence unknown"
    assert white.get_attribute("title") == "not connected to the server"
    assert white.get_attribute("data-connected") == "?"
    b.execute_script("connect = window.realConnect; connect();")
    at_version(7, b, c)
    wait(b, lambda b: b.execute_script("return room.pending.size") == 0, "the move acknowledged")
    wait(b, lambda b: not shown(b, "pending"), "the waiting line gone")
    assert not b.find_elements(By.CSS_SELECTOR, "#board .pending")
    assert "Connection lost: reconnecting…" in b.execute_script("return window.connectionSaid")
    wait(b, lambda b: not shown(b, "connection"), "reconnected")
    wait(b, lambda b: "your friend, offline" in text(b, "player-white"), "A's presence again")
    a.execute_script('window.dispatchEvent(new PageTransitionEvent("pageshow", {persisted: true}))')
    at_version(7, a)
    wait(b, lambda b: "your friend, online" in text(b, "player-white"), "A back online")
    # a refused move's waiting line goes too
    b.execute_script("room.pending.set('t', 'c3'); render();")
    assert shown(b, "pending")
    b.execute_script("receive({type: 'refused', id: 't', error: 'refused for the test'})")
    assert not shown(b, "pending") and text(b, "error") == "refused for the test"
    events = get_json(f"{server}/api/rooms/{room}/events?since=0")["events"]
    assert [e["move"] for e in events if e["kind"] == "move"] == GAME[:6]

    # no values during play: the stone chosen, then only neutral marks where it can go;
    # the chosen stone clicked again is chosen no more
    assert not a.find_elements(By.CSS_SELECTOR, "#review .review-chart")
    click(a, "a1")
    assert hints(a) == ["hint target"]
    click(a, "a1")
    assert hints(a) == [] and "selected" not in a.find_element(
        By.CSS_SELECTOR, '[data-point="a1"] title').get_attribute("textContent")
    click(a, "a1")
    assert "a1, white stone, selected" in a.find_element(
        By.CSS_SELECTOR, '[data-point="a1"] title').get_attribute("textContent")
    click(a, "b2")
    at_version(8, a, b, c)
    assert text(a, "over") == "You win: you made a line of three."
    assert text(b, "over") == "You lose: White made a line of three."
    assert text(c, "over") == "White wins with a line of three."
    assert moves(c) == GAME and not shown(c, "actions")
    state = get_json(f"{server}/api/rooms/{room}")
    for color in ("white", "black"):
        assert a.find_element(By.CSS_SELECTOR, f"#player-{color} .clock").text == clock(
            state["elapsed"][color])

    # the review, as the API gives it, in the players' and the watcher's pages
    review = get_json(f"{server}/api/rooms/{room}/review?game=1")
    assert [p["mark"] for p in review["plies"]] == MARKS
    for browser in (a, c):
        reviewed(browser, 1)
        assert review_shown(browser) == review_expected(review)
    rows = a.find_elements(By.CSS_SELECTOR, "#review tbody tr")
    assert rows[0].text.split() == ["1", "White", "a1", "win", "in", "9", "draw",
                                    "win", "given", "away", "(best:", "b2,", "win", "in", "9)"]
    first_turn = a.find_element(By.CSS_SELECTOR, "#review .review-turns li").text
    assert first_turn == ("Ply 1, White played a1: win given away. "
                          "Here the move b2 kept the WIN.")
    picture(a, "room-review.png", width=1280)

    # a chart point opens that position on the analysis board, which reviews it too
    link = c.find_element(By.CSS_SELECTOR, '#review .review-chart a[data-ply="5"]')
    href = server + link.get_dom_attribute("href")
    query = parse_qs(urlparse(href).query)
    assert query["moves"] == [" ".join(GAME[:5])] and query["draw_rules"] == ["1"]
    c.get(href)
    board_ready(c)
    assert c.find_element(By.ID, "move-list").get_attribute("value") == " ".join(GAME[:5])
    c.find_element(By.ID, "review-game").click()
    wait(c, lambda c: shown(c, "review"), "the board's review")
    board_review = get_json(f"{server}/api/review?variant=three&draw_rules=1&moves="
                            + "+".join(GAME[:5]))
    assert review_shown(c) == review_expected(board_review)
    assert review_shown(c)["marks"] == MARKS[:5]
    c.get(watch)
    at_version(8, c)

    # a rematch: colours swap, a draw offered and declined, then A resigns (after a confirm)
    a.find_element(By.ID, "rematch").click()
    at_version(9, a, b, c)
    assert text(b, "offer") == "Your friend asks for a rematch."
    assert a.find_element(By.ID, "rematch").text == "Rematch asked"
    b.find_element(By.ID, "rematch").click()
    at_version(10, a, b, c)
    assert text(a, "me") == "You play Black." and text(b, "me") == "You play White."
    # game 1's review stays reachable during the rematch
    assert moves(a) == [] and not shown(a, "review") and review_games(a) == ["1"]
    a.find_element(By.CSS_SELECTOR, '#review-games [data-game="1"]').click()
    reviewed(a, 1)
    assert review_shown(a) == review_expected(review)
    click(b, "b2")
    at_version(11, a, b, c)
    a.find_element(By.ID, "offer-draw").click()
    at_version(12, a, b, c)
    assert text(b, "offer") == "Your friend offers a draw." and shown(b, "accept-draw")
    assert text(c, "offer") == "Black offers a draw." and not shown(c, "actions")
    b.find_element(By.ID, "decline-draw").click()
    at_version(13, a, b, c)
    assert not shown(a, "offer") and not shown(b, "accept-draw")
    a.find_element(By.ID, "resign").click()
    assert shown(a, "resign-confirm")
    a.find_element(By.ID, "resign-yes").click()
    at_version(14, a, b, c)
    assert text(b, "over") == "You win: Black resigned."
    assert text(a, "over") == "You lose: you resigned."
    assert text(c, "over") == "White wins: Black resigned."
    reviewed(a, 2)
    assert review_games(a) == ["2", "1"]
    a.find_element(By.CSS_SELECTOR, '#review-games [data-game="1"]').click()
    reviewed(a, 1)
    assert review_shown(a) == review_expected(review)

    # a stone taken by the last move: a cross on its empty point (Three Men's Morris
    # takes none, so the board is drawn here with a made-up last move)
    crosses = c.execute_script("""
        const svg = document.createElementNS(BoardView.SVG, "svg");
        const view = new BoardView(svg, room.variants.three);
        view.render({ white: ["b2"], black: ["a1"], lastMove: BoardView.parseMove("a2-b2xc3xa1") });
        return [[...svg.querySelectorAll(".taken")].map((e) => e.dataset.taken),
                svg.querySelector('[data-point="c3"] title').textContent];""")
    assert crosses == [["c3"], "c3, empty, stone taken by the last move"]

    # the watcher on a phone: nothing wider than the screen, the whole board on it, the
    # players' clocks and presence above it, in sight; the review's columns readable
    c.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                      {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})
    try:
        c.refresh()
        at_version(14, c)
        assert c.execute_script("return document.documentElement.scrollWidth") <= 390
        board = c.find_element(By.ID, "board").rect
        assert board["x"] >= 0 and board["x"] + board["width"] <= 390 and board["width"] >= 300
        players = c.find_element(By.ID, "players").rect
        assert players["y"] + players["height"] <= board["y"]
        assert board["y"] + board["height"] <= 844
        picture(c, "room-phone.png")
        reviewed(c, 2)
        assert c.execute_script("return document.documentElement.scrollWidth") <= 390
        mark = c.find_element(By.CSS_SELECTOR, "#review tbody tr:first-child td:last-child")
        assert mark.rect["width"] >= 150  # not a word a line
        # the move list's numbers (in its left padding) fit up to 100
        room_for, number = c.execute_script("""
            const list = document.getElementById("moves");
            const probe = document.createElement("span");
            probe.textContent = "100. ";
            list.append(probe);
            const width = probe.getBoundingClientRect().width;
            probe.remove();
            return [parseFloat(getComputedStyle(list).paddingLeft), width];""")
        assert room_for >= number
    finally:
        c.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


# the join's fetch in a page, wrapped: each call's body and the room's stored entry at
# that moment are kept in sessionStorage; the first answer is a made-up 503 (nothing
# sent), the second is sent but its answer never comes, unless sessionStorage says "pass"
JOIN_WRAPPER = """
const realFetch = window.fetch;
window.fetch = async (url, init) => {
  if (!String(url).endsWith("/join")) return realFetch(url, init);
  const joins = JSON.parse(sessionStorage.getItem("joins") || "[]");
  const stored = Object.keys(localStorage).map((k) => localStorage.getItem(k));
  joins.push({ body: JSON.parse(init.body), stored });
  sessionStorage.setItem("joins", JSON.stringify(joins));
  if (sessionStorage.getItem("mode") === "pass") return realFetch(url, init);
  if (joins.length === 1) return new Response("{}", { status: 503 });
  await realFetch(url, init);
  sessionStorage.setItem("answered", "1");
  return new Promise(() => {});  // the answer lost: the page is left waiting
};
"""


def test_a_join_whose_answer_is_lost_gets_the_seat_on_reload(server):
    request = urlopen(f"{server}/api/rooms", data=json.dumps(
        {"variant": "three", "color": "white"}).encode(), timeout=10)
    created = json.load(request)
    room = created["room"]
    d = new_browser()
    try:
        d.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": JOIN_WRAPPER})
        d.get(created["invite"])
        wait(d, lambda d: d.execute_script("return sessionStorage.getItem('answered')"),
             "the join sent again after a 503")
        joins = d.execute_script("return JSON.parse(sessionStorage.getItem('joins'))")
        token = joins[0]["body"]["token"]
        assert re.fullmatch(r"[A-Za-z0-9_-]{32}", token)
        assert [j["body"]["token"] for j in joins] == [token, token]
        assert any(json.loads(s).get("pending") == token for s in joins[0]["stored"])
        assert get_json(f"{server}/api/rooms/{room}")["seats"]["black"]["taken"]

        # a reload joins again with the stored token: the seat is this browser's
        d.execute_script("sessionStorage.setItem('mode', 'pass')")
        d.refresh()
        at_version(1, d)
        assert text(d, "me") == "You play Black."
        assert urlparse(d.current_url).fragment == f"seat={token}"
        joins = d.execute_script("return JSON.parse(sessionStorage.getItem('joins'))")
        assert len(joins) == 3 and joins[2]["body"]["token"] == token
        assert get_json(f"{server}/api/rooms/{room}")["version"] == 1
    finally:
        d.quit()
