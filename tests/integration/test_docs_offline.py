"""``/docs`` and ``/redoc`` of a real ``flowmem serve`` render in headless Chromium with the network off.

Chromium (Debian's ``chromium`` and ``chromium-driver``, installed by scripts/test.sh) reaches the loopback
server only: every other host name resolves to nothing and every other request goes to a proxy that refuses
it. The pages must then draw the API's routes from flowmem's own assets. Screenshots go to
``build/test-artifacts/`` (``$FLOWMEM_TEST_ARTIFACTS`` elsewhere): ``docs-offline.png`` and ``redoc-offline.png``.
Without the browser the test skips locally and fails under ``CI=true``.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from flowmem.testing.serve_process import ServeProcess, free_port

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(os.environ.get("FLOWMEM_TEST_ARTIFACTS") or ROOT / "build" / "test-artifacts")
CDN = "https://cdn.jsdelivr.net/npm/swagger-ui-dist@5/swagger-ui-bundle.js"  # what FastAPI's own page loads


def _browser_paths() -> tuple[str, str]:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    try:
        import selenium  # noqa: F401
    except ImportError:
        browser = None
    if browser and driver:
        return browser, driver
    reason = "needs Debian's chromium and chromium-driver and selenium (scripts/test.sh installs them)"
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI=true: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    tmp = tmp_path_factory.mktemp("docs")
    config = tmp / "serve.yaml"
    config.write_text("embedding_model:\n  default: {backend: hash}\n", encoding="utf-8")
    with ServeProcess(["-c", str(config)], home=tmp / "home") as process:
        yield process


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    binary, driver_path = _browser_paths()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for flag in (
        "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,2000",
        "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
        f"--user-data-dir={tmp_path_factory.mktemp('chromium')}",
        # The network off: no host name resolves but the loopback address, and every request that is not for
        # loopback (which Chromium never proxies) goes to a port where nothing listens.
        "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
        f"--proxy-server=http://127.0.0.1:{free_port()}",
    ):  # fmt: skip
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=Service(executable_path=driver_path))
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()


def _resources(browser: Any) -> list[str]:
    names: list[str] = browser.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
    return names


def _screenshot(browser: Any, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / name
    assert browser.save_screenshot(str(path)), path
    print(f"\nscreenshot: {path}")
    return path


def test_the_network_is_off_in_this_browser(server: ServeProcess, browser: Any) -> None:
    browser.get(f"{server.url}/healthz")
    reached = browser.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "fetch(arguments[0], {mode: 'no-cors'}).then(() => done('reached'), e => done('refused: ' + e));",
        CDN,
    )
    assert reached.startswith("refused"), reached


def test_docs_render_the_routes_offline(server: ServeProcess, browser: Any) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get(f"{server.url}/docs")
    WebDriverWait(browser, 60).until(expected_conditions.presence_of_element_located((By.CSS_SELECTOR, ".opblock")))
    paths = {e.text.replace("\u200b", "") for e in browser.find_elements(By.CSS_SELECTOR, ".opblock-summary-path")}
    assert {"/v1/search", "/v1/memories", "/v1/memories/{memory_id}", "/v1/context"} <= paths, paths
    assert "flowmem" in browser.find_element(By.CSS_SELECTOR, ".info .title").text
    assert all(name.startswith(server.url) for name in _resources(browser)), _resources(browser)
    assert _screenshot(browser, "docs-offline.png").stat().st_size > 10_000


def test_redoc_renders_the_routes_offline(server: ServeProcess, browser: Any) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get(f"{server.url}/redoc")
    summary = "Recall a user's memories for a query, best first"  # /v1/search's summary
    WebDriverWait(browser, 60).until(lambda b: summary in b.find_element(By.TAG_NAME, "body").text)
    # ReDoc's bundle links its "API docs by Redocly" badge image to its CDN (no option turns it off): offline
    # the badge lacks its icon; everything the page is made of came from the server.
    badge = "https://cdn.redoc.ly/redoc/logo-mini.svg"
    assert all(name.startswith(server.url) for name in _resources(browser) if name != badge), _resources(browser)
    assert _screenshot(browser, "redoc-offline.png").stat().st_size > 10_000
