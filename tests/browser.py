"""What the browser tests share (tests/test_web_browser.py, tests/test_live_browser.py):
the distribution's headless Chromium driven by Selenium, and the app served by Uvicorn
on a free loopback port in a thread.

A test module takes the ``chromium`` fixture by importing it (it is autouse): where no
Chromium and ChromeDriver are installed (``.ci/run`` installs them) its tests are
skipped with the reason, or fail under CI (``CI=true``), so that CI cannot pass without
them."""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

try:
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
except ImportError:  # the chromium fixture says so
    webdriver = None

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")


def missing() -> str | None:
    """Why the browser cannot be driven here, or None."""
    if webdriver is None:
        return "no selenium (pip install -e '.[dev]')"
    if not (CHROMIUM and CHROMEDRIVER):
        return (
            "no chromium and chromedriver on PATH (Debian: apt-get install chromium "
            "chromium-driver)"
        )
    return None


@pytest.fixture(scope="session", autouse=True)
def chromium():
    """Session-scoped, so it decides before the tables are solved: a skip with the reason,
    but under CI a failure, since a CI run without the browser test proves nothing."""
    reason = missing()
    if reason and os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"CI=true but {reason}", pytrace=False)
    if reason:
        pytest.skip(reason)


@contextmanager
def serving(app) -> Iterator[str]:
    """``app`` on a free loopback port, in a thread; yields its base URL."""
    import uvicorn

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    running = uvicorn.Server(config)
    thread = threading.Thread(target=running.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not running.started:
        if time.monotonic() > deadline:
            pytest.fail("the server did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        running.should_exit = True
        thread.join(timeout=10)


def new_browser(width: int = 1200, height: int = 900):
    """A headless Chromium of its own (its own profile: storage, cookies), ``width`` x
    ``height`` CSS pixels; the caller quits it."""
    options = Options()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 f"--window-size={width},{height}"):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
