"""The web board in a real browser: the distribution's headless Chromium, driven by
Selenium, loads the page for Three and Six Men's Morris, plays by clicking the board and
by keys, checks what it shows against the API, and plays against a slow and a failing
server (a wrapper around the page's fetch). Where no Chromium and ChromeDriver are
installed (``.ci/run`` installs them) the tests are skipped, with the reason, or fail
under CI (``CI=true``), so that CI cannot pass without them. ``MORRIS_SCREENSHOT=FILE``
saves pictures of the board during the Six Men's Morris games: FILE (docs/board.png) and,
at phone size, FILE with -phone added to its stem (docs/board-phone.png)."""

from __future__ import annotations

import os
import time
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
from browser import chromium, new_browser, serving  # noqa: E402, F401 (chromium: a fixture)
from starlette.testclient import TestClient  # noqa: E402

from morris_cli.web.app import create_app  # noqa: E402
from morris_solver.play.engine import STRENGTHS  # noqa: E402
from morris_solver.solving.generate import solve  # noqa: E402

try:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select, WebDriverWait
except ImportError:  # the chromium fixture skips the tests, or fails them under CI
    pass


@pytest.fixture(scope="module")
def tables(table_paths, six_whole_path) -> dict:
    return {"three": table_paths["three"], "six": six_whole_path}


@pytest.fixture(scope="module")
def server(tables):
    """The app on a free loopback port, in a thread; yields its base URL."""
    with serving(create_app(tables)) as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    driver = new_browser()
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def api(tables):
    """The same API in this thread (a Tablebase serves one thread at a time)."""
    return TestClient(create_app(tables))


def settled(browser) -> None:
    """Wait until the page has drawn the answer to its last request."""
    WebDriverWait(browser, 20).until(
        lambda b: b.execute_script("return document.body.dataset.ready") == "1"
    )


def busy_shown(browser) -> bool:
    return browser.find_element(By.ID, "busy").is_displayed()


def fake_server(browser, rules: list[dict]) -> None:
    """Puts a wrapper around the page's fetch: a request whose URL holds a rule's
    ``path`` waits ``delay`` ms, then answers ``status`` with the HTML ``body`` (as a proxy
    in front of the server would) or goes to the server; with ``hang`` it never answers
    (until aborted). ``fake_server(browser, [])`` takes the rules away."""
    browser.execute_script("""
        const rules = arguments[0];
        window.realFetch = window.realFetch || window.fetch;
        window.fetch = async (url, options = {}) => {
          const rule = rules.find((r) => String(url).includes(r.path));
          if (!rule) return window.realFetch(url, options);
          if (rule.hang) {
            return new Promise((resolve, reject) => options.signal.addEventListener(
              "abort", () => reject(new DOMException("aborted", "AbortError"))));
          }
          await new Promise((resolve) => setTimeout(resolve, rule.delay || 0));
          if (!rule.status) return window.realFetch(url, options);
          return new Response(rule.body, { status: rule.status,
                                           headers: { "content-type": "text/html" } });
        };""", rules)


def click_point(browser, name: str) -> None:
    browser.find_element(By.CSS_SELECTOR, f'[data-point="{name}"]').click()
    settled(browser)


def shown(browser) -> dict:
    """The position, value and move list the page shows."""
    value = browser.find_element(By.ID, "value")
    moves = browser.find_elements(By.CSS_SELECTOR, "#moves li")
    plies = value.get_attribute("data-plies")
    return {
        "position": browser.find_element(By.ID, "position-text").get_attribute("value"),
        "played": browser.find_element(By.ID, "move-list").get_attribute("value").split(),
        "value": {"result": value.get_attribute("data-result"),
                  "plies": int(plies) if plies else None},
        "moves": [li.get_attribute("data-move") for li in moves],
        "results": [li.get_attribute("data-result") for li in moves],
    }


def expected(api, variant: str, played: list[str]) -> dict:
    body = api.get("/api/game", params={"variant": variant, "moves": " ".join(played)}).json()
    return {
        "position": body["position"], "played": played, "value": body["value"],
        "moves": [m["move"] for m in body["moves"]],
        "results": [m["value"]["result"] for m in body["moves"]],
    }


def screenshot(browser, suffix: str) -> None:
    """Saves the page under MORRIS_SCREENSHOT's name with suffix added, if it is set."""
    target = os.environ.get("MORRIS_SCREENSHOT")
    if target:
        path = Path(target)
        browser.save_screenshot(str(path.with_stem(path.stem + suffix)))


def test_three_by_clicks_with_undo_redo_and_a_link(server, browser, api):
    browser.get(f"{server}/?variant=three")
    settled(browser)
    assert shown(browser) == expected(api, "three", [])
    for point, played in (("b2", ["b2"]), ("a1", ["b2", "a1"]), ("c3", ["b2", "a1", "c3"])):
        click_point(browser, point)
        assert shown(browser) == expected(api, "three", played)
    browser.find_element(By.ID, "undo").click()
    settled(browser)
    assert shown(browser) == expected(api, "three", ["b2", "a1"])
    browser.find_element(By.ID, "redo").click()
    settled(browser)
    assert shown(browser)["played"] == ["b2", "a1", "c3"]
    link = browser.current_url
    assert parse_qs(urlparse(link).query)["moves"] == ["b2 a1 c3"]
    browser.get(link)  # the link opens the same game
    settled(browser)
    assert shown(browser) == expected(api, "three", ["b2", "a1", "c3"])


def test_six_a_mill_removes_the_clicked_stone(server, browser, api):
    browser.get(f"{server}/?variant=six")
    settled(browser)
    for point in ("a1", "c1", "a3", "e1"):
        click_point(browser, point)
    click_point(browser, "a5")  # closes a1-a3-a5: the page waits for the stone to remove
    assert shown(browser)["played"] == ["a1", "c1", "a3", "e1"]
    click_point(browser, "e1")
    now = shown(browser)
    assert now["played"] == ["a1", "c1", "a3", "e1", "a5xe1"]
    assert now == expected(api, "six", now["played"])
    assert "win" in now["results"] or "draw" in now["results"] or "loss" in now["results"]


# a Six Men's Morris game where Black's d4 closes a mill and taking a1 wins, a5, b2 or d3
# draws, e3 loses
MIXED = ["e3", "b3", "a1", "c4", "d3", "e5", "b2", "b4", "a5"]
MIXED_MARKS = {"a1": "win", "a5": "draw", "b2": "draw", "d3": "draw", "e3": "loss"}


def point_names(browser) -> dict[str, str]:
    """Each point's accessible name (its <title>), by point."""
    return {hit.get_attribute("data-point"):
            hit.find_element(By.TAG_NAME, "title").get_attribute("textContent")
            for hit in browser.find_elements(By.CSS_SELECTOR, "[data-point]")}


def test_six_marks_the_stones_to_take_by_result(server, browser, api):
    browser.get(f"{server}/?variant=six&moves={'+'.join(MIXED)}")
    settled(browser)
    click_point(browser, "d4")
    marks = {p: n.rsplit("leads to a ", 1)[1] for p, n in point_names(browser).items()
             if "leads to" in n}
    assert marks == MIXED_MARKS
    assert point_names(browser)["d4"] == "d4, empty, selected"
    assert point_names(browser)["a5"] == "a5, white stone, last move, leads to a draw"
    hints = browser.find_elements(By.CSS_SELECTOR, "#board .hint")
    assert sorted(h.get_attribute("class") for h in hints) == sorted(
        f"hint {r}" for r in MIXED_MARKS.values())
    screenshot(browser, "")
    click_point(browser, "a1")
    assert shown(browser) == expected(api, "six", [*MIXED, "d4xa1"])
    assert shown(browser)["value"]["result"] == "loss"  # White's, after Black's winning take


def test_the_engine_answers_for_its_side(server, browser, api):
    browser.get(f"{server}/?variant=three&mode=black")  # the human plays Black
    settled(browser)
    first = api.get("/api/engine", params={"variant": "three"}).json()["move"]
    assert shown(browser)["played"] == [first]  # White's move came from the engine
    reply = shown(browser)["moves"][0]
    click_point(browser, reply)
    played = shown(browser)["played"]
    assert played[:2] == [first, reply] and len(played) == 3
    assert not browser.find_element(By.ID, "over").is_displayed()


def test_the_strengths_each_say_what_they_do(server, browser, api):
    browser.get(f"{server}/?variant=three&mode=black")
    settled(browser)
    menu = Select(browser.find_element(By.ID, "strength"))
    note = browser.find_element(By.ID, "strength-note")
    assert [o.get_attribute("value") for o in menu.options] == list(STRENGTHS)
    assert menu.first_selected_option.get_attribute("value") == "ultra"  # the strongest
    assert "most chances to go wrong" in note.text
    against = Select(browser.find_element(By.ID, "against"))
    assert against.first_selected_option.get_attribute("value") == "noisy:0.1"
    against.select_by_value("noisy:0.2")  # whom ultra plays for, kept in the link
    assert parse_qs(urlparse(browser.current_url).query)["against"] == ["noisy:0.2"]
    menu.select_by_value("easy")
    assert "random move half of the time" in note.text
    assert parse_qs(urlparse(browser.current_url).query)["strength"] == ["easy"]
    browser.get(f"{server}/?variant=three&mode=black&strength=perfect&against=noisy:0.05")
    settled(browser)
    assert "fastest win" in browser.find_element(By.ID, "strength-note").text
    assert Select(browser.find_element(By.ID, "against")).first_selected_option.get_attribute(
        "value") == "noisy:0.05"  # a shared link


def test_three_by_keys(server, browser, api):
    """The board is one tab stop; arrows move along its lines, Enter and Space play, and
    the live status line says what was played and who is to move."""
    browser.get(f"{server}/?variant=three")
    settled(browser)
    status = browser.find_element(By.CSS_SELECTOR, '[aria-live="polite"]')
    assert status.text.startswith("White to move")
    browser.execute_script("document.getElementById('show-values').focus()")
    ActionChains(browser).send_keys(Keys.TAB).perform()  # from the last control to the board

    def focused() -> str:
        return browser.switch_to.active_element.get_attribute("data-point")

    assert focused() == "a1"
    for key, point in ((Keys.ARROW_RIGHT, "b1"), (Keys.ARROW_UP, "b2"), (Keys.ARROW_UP, "b3"),
                       (Keys.ARROW_DOWN, "b2")):
        browser.switch_to.active_element.send_keys(key)
        assert focused() == point
    browser.switch_to.active_element.send_keys(Keys.ENTER)
    settled(browser)
    assert shown(browser) == expected(api, "three", ["b2"])
    assert focused() == "b2"  # the focus stays where it was
    assert status.text.startswith("White played b2. Black to move")
    name = browser.switch_to.active_element.find_element(By.TAG_NAME, "title")
    assert name.get_attribute("textContent") == "b2, white stone, last move"
    assert len(browser.find_elements(By.CSS_SELECTOR, '#board [tabindex="0"]')) == 1
    browser.switch_to.active_element.send_keys(Keys.ARROW_LEFT)
    browser.switch_to.active_element.send_keys(Keys.SPACE)
    settled(browser)
    assert shown(browser) == expected(api, "three", ["b2", "a2"])
    assert status.text.startswith("Black played a2. White to move")
    assert browser.find_elements(By.CSS_SELECTOR, '[aria-live="polite"] #over')  # the end too


def test_a_slow_server_shows_it_is_busy(server, browser, api):
    browser.get(f"{server}/?variant=three")
    settled(browser)
    fake_server(browser, [{"path": "/api/game", "delay": 2000}])
    browser.find_element(By.CSS_SELECTOR, '[data-point="b2"]').click()
    WebDriverWait(browser, 5).until(busy_shown)
    assert browser.find_element(By.ID, "board").get_attribute("aria-busy") == "true"
    browser.find_element(By.CSS_SELECTOR, '[data-point="a1"]').click()  # while waiting
    assert "Wait for the answer" in browser.find_element(By.ID, "busy").text
    settled(browser)
    assert shown(browser)["played"] == ["b2"]  # the click in between was not played
    assert not busy_shown(browser)
    assert browser.find_element(By.ID, "board").get_attribute("aria-busy") == "false"


def test_a_late_engine_move_does_not_land_in_the_next_game(server, browser, api):
    browser.get(f"{server}/?variant=three")
    settled(browser)
    fake_server(browser, [{"path": "/api/engine", "delay": 1500}])
    mode = Select(browser.find_element(By.ID, "mode"))
    mode.select_by_value("black")  # the engine is to play White's first move
    WebDriverWait(browser, 5).until(busy_shown)
    assert "Engine thinking" in browser.find_element(By.ID, "busy").text
    mode.select_by_value("analyse")  # another game, before the engine's answer
    settled(browser)
    time.sleep(2)  # past the engine's answer
    assert shown(browser) == expected(api, "three", [])
    assert "moves" not in parse_qs(urlparse(browser.current_url).query)


def test_a_failing_server_says_so_in_one_line_with_retry(server, browser, api):
    browser.get(f"{server}/?variant=three")
    settled(browser)
    error = browser.find_element(By.ID, "error-text")
    retry = browser.find_element(By.ID, "retry")
    bad_gateway = "<html><body><h1>502 Bad Gateway</h1>\n<hr>nginx</body></html>"
    fake_server(browser, [{"path": "/api/game", "status": 502, "body": bad_gateway}])
    click_point(browser, "b2")
    assert error.text == "server error 502" and retry.is_displayed()
    assert shown(browser)["played"] == []  # the game shown is still the last answer's
    fake_server(browser, [])
    retry.click()
    settled(browser)
    assert shown(browser) == expected(api, "three", ["b2"])
    assert not browser.find_element(By.ID, "error").is_displayed()
    # a request the server refuses is not worth a retry
    browser.find_element(By.ID, "move-list").send_keys(" z9", Keys.ENTER)
    settled(browser)
    assert "z9" in error.text and not retry.is_displayed()


def test_a_server_that_does_not_answer_times_out(server, browser, api):
    browser.get(f"{server}/?variant=three")
    settled(browser)
    fake_server(browser, [{"path": "/api/game", "hang": True}])
    browser.find_element(By.CSS_SELECTOR, '[data-point="b2"]').click()
    WebDriverWait(browser, 5).until(busy_shown)
    WebDriverWait(browser, 25).until(lambda b: b.find_element(By.ID, "error").is_displayed())
    assert browser.find_element(By.ID, "error-text").text == "no answer from the server in 15 s"
    assert not busy_shown(browser)
    fake_server(browser, [])
    browser.find_element(By.ID, "retry").click()
    settled(browser)
    assert shown(browser)["played"] == ["b2"]


def test_six_on_a_phone(server, browser, api):
    """At 360 x 740 CSS pixels (a phone's screen; a desktop window cannot be so narrow):
    nothing wider than the screen, the whole board on it, and a game by touch."""
    metrics = {"width": 360, "height": 740, "deviceScaleFactor": 1, "mobile": True}
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
    try:
        browser.get(f"{server}/?variant=six")
        settled(browser)
        width = browser.execute_script("return document.documentElement.scrollWidth")
        assert width <= 360
        board = browser.find_element(By.ID, "board").rect
        assert board["x"] >= 0 and board["x"] + board["width"] <= 360 and board["width"] >= 300
        for point in [*MIXED, "d4"]:
            click_point(browser, point)
        assert shown(browser)["played"] == MIXED
        screenshot(browser, "-phone")  # the marks on the stones d4 may take
        click_point(browser, "e3")
        assert shown(browser) == expected(api, "six", [*MIXED, "d4xe3"])
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_a_placement_position_searched_over_the_moving_phase(browser, tmp_path_factory):
    # a server with Six Men's Morris' moving phase only: the page shows the searched
    # results (no distance) and says it searched
    path = tmp_path_factory.mktemp("six-moving") / "six.h5"
    solve("six", path, phase="moving", show_progress=False, log=lambda s: None)
    with serving(create_app({"six": path})) as url:
        browser.get(f"{url}/?variant=six&moves=a1+a3")
        settled(browser)
        value = browser.find_element(By.ID, "value")
        assert value.text.startswith("White: draw (searched: ") and value.text.endswith(" s)")
        assert int(value.get_attribute("data-searched")) >= 0
        texts = [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#moves li")]
        assert texts and all(t.split()[-1] in ("win", "draw", "loss") for t in texts), texts
