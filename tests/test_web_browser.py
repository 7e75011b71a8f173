"""The web board in a real browser: the distribution's headless Chromium, driven by
Selenium, loads the page for Three and Six Men's Morris, plays by clicking the board and
checks what it shows against the API. Skipped, with the reason, where no Chromium and
ChromeDriver are installed (``.ci/run`` installs them). ``MORRIS_SCREENSHOT=FILE`` saves
a picture of the board at the end of the Six Men's Morris game (docs/board.png)."""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time
from urllib.parse import parse_qs, urlparse

import pytest

pytest.importorskip("starlette")
uvicorn = pytest.importorskip("uvicorn")
webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.chrome.options import Options  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from web.app import create_app  # noqa: E402

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(
    not (CHROMIUM and CHROMEDRIVER),
    reason="no chromium and chromedriver on PATH (Debian: apt-get install chromium "
    "chromium-driver)",
)


@pytest.fixture(scope="module")
def tables(table_paths, six_whole_path) -> dict:
    return {"three": table_paths["three"], "six": six_whole_path}


@pytest.fixture(scope="module")
def server(tables):
    """The app on a free loopback port, in a thread; yields its base URL."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config = uvicorn.Config(create_app(tables), host="127.0.0.1", port=port, log_level="warning")
    running = uvicorn.Server(config)
    thread = threading.Thread(target=running.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not running.started:
        if time.monotonic() > deadline:
            pytest.fail("the server did not start")
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    running.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def browser():
    options = Options()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--window-size=1200,900"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
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
    target = os.environ.get("MORRIS_SCREENSHOT")
    if target:
        browser.save_screenshot(target)


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
