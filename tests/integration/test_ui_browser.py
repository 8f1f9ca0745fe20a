"""The web inspector (``/ui``) in a real headless Chromium, against a real ``flowmem serve`` on a loopback port.

Debian's ``chromium`` and ``chromium-driver`` (scripts/test.sh installs them), driven by Selenium: never a
browser that downloads itself. Without them the tests skip with the reason, or fail when ``CI=true``.
Each page is saved as a screenshot in ``build/test-artifacts/ui/`` (``$FLOWMEM_TEST_ARTIFACTS/ui`` elsewhere), as
the /docs test saves its own; the README's three (``docs/screenshots/``) are copies of ``search.png``,
``memory-edited.png`` and ``memories.png``.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from flowmem.testing.serve_process import ServeProcess

selenium = pytest.importorskip("selenium", reason="selenium is in flowmem[test]")
from selenium import webdriver  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.remote.webdriver import WebDriver  # noqa: E402
from selenium.webdriver.remote.webelement import WebElement  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

KEYS = {"FLOWMEM_UI_KEY": "ui-key-0123456789abcdef", "FLOWMEM_UI_RO": "ui-ro-0123456789abcdef"}
WRITE = {"Authorization": f"Bearer {KEYS['FLOWMEM_UI_KEY']}"}
# The default setup (local store, the offline e5 model): the search page shows what users will see.
CONFIG = """
server:
  api_keys:
    - {name: inspector, key: "${FLOWMEM_UI_KEY}", workspaces: [demo]}
    - {name: auditor, key: "${FLOWMEM_UI_RO}", workspaces: [demo], read_only: true}
"""
SCRIPT = "<script>window.__pwned = 1</script> note with markup <b>bold</b>"
FACTS = [
    ("I live in Berlin, in Kreuzberg", "2024-05-01T10:00:00"),
    ("On Saturday, June 8, I hiked Mount Tam with my sister Grace", "2024-06-09T09:00:00"),
    ("I had a dim-sum brunch with Sam and my parents on Sunday", "2024-06-09T19:00:00"),
    ("My dog Nibbles loves the beach", "2024-06-10T08:00:00"),
    (SCRIPT, "2024-06-11T08:00:00"),
    ("We moved to Lisbon last week, we live in Alfama now", "2024-07-03T09:00:00"),
]
TURNS = ["Hi! I just started a pottery class on Tuesdays", "The teacher is called Mirela and she is great",
         "Next week we glaze the first bowls", "I also want to try the wheel soon"]  # fmt: skip


def _browser() -> tuple[str, str] | None:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver") or (
        "/usr/lib/chromium/chromedriver" if Path("/usr/lib/chromium/chromedriver").exists() else None
    )
    return (chromium, driver) if chromium and driver else None


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    tmp = tmp_path_factory.mktemp("ui")
    config = tmp / "serve.yaml"
    config.write_text(CONFIG, encoding="utf-8")
    with ServeProcess(["-c", str(config)], home=tmp / "home", env=KEYS) as process:
        with httpx.Client(base_url=process.url, headers=WRITE, timeout=60) as http:
            for text, at in FACTS:
                _add(http, text, "alice", at)
            for text in ("Bob likes chess", "Bob works at Lumen Health"):
                _add(http, text, "bob", "2024-06-01T12:00:00")
            for n, text in enumerate(TURNS):
                turn = {"message": text, "user_id": "carol", "session_id": "chat-1", "workspace_id": "demo",
                        "token_limit": 60, "timestamp": f"2024-07-05T10:0{n}:00"}  # fmt: skip
                assert http.post("/v1/context", json=turn).status_code == 200
        yield process


def _add(http: httpx.Client, text: str, user: str, at: str) -> None:
    response = http.post("/v1/memories", json={"text": text, "user_id": user, "workspace_id": "demo", "timestamp": at})
    assert response.status_code == 200, response.text


@pytest.fixture(scope="module")
def shots() -> Path:
    root = Path(
        os.environ.get("FLOWMEM_TEST_ARTIFACTS") or Path(__file__).resolve().parents[2] / "build" / "test-artifacts"
    )
    path = root / "ui"
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture(scope="module")
def browser() -> Iterator[WebDriver]:
    found = _browser()
    if found is None:
        message = "Chromium and chromedriver are not installed (apt-get install chromium chromium-driver)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"{message}; CI=true: the browser tests must run, not be skipped", pytrace=False)
        pytest.skip(message)
    chromium, driver_path = found
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--window-size=1280,900", "--force-device-scale-factor=1", "--lang=en-US"):  # fmt: skip
        options.add_argument(argument)
    service = webdriver.ChromeService(executable_path=driver_path)
    driver = webdriver.Chrome(options=options, service=service)
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()


class Ui:
    """The browser on the server's inspector: go, fill, submit, find, save a screenshot."""

    def __init__(self, driver: WebDriver, server: ServeProcess, shots: Path):
        self.driver, self.base, self.shots = driver, f"{server.url}/ui", shots

    def go(self, path: str) -> None:
        self.driver.get(self.base + path)

    def css(self, selector: str) -> WebElement:
        return self.driver.find_element(By.CSS_SELECTOR, selector)

    def all(self, selector: str) -> list[WebElement]:
        return self.driver.find_elements(By.CSS_SELECTOR, selector)

    def fill(self, selector: str, text: str) -> None:
        field = self.css(selector)
        field.clear()
        field.send_keys(text)

    def submit(self, selector: str) -> None:
        old = self.css("body")
        self.css(selector).click()
        WebDriverWait(self.driver, 30).until(lambda d: _stale(old))

    def sign_in(self, key: str) -> None:
        self.driver.delete_all_cookies()
        self.go("/signin")
        self.fill("#api_key", key)
        self.submit("button[type=submit].primary")

    def shot(self, name: str) -> None:
        """The whole page (up to 2,400 px tall) at the window's width."""
        size = self.driver.get_window_size()
        height = self.driver.execute_script("return document.documentElement.scrollHeight")
        self.driver.set_window_size(size["width"], min(max(int(height) + 140, size["height"]), 2400))
        self.driver.save_screenshot(str(self.shots / f"{name}.png"))
        self.driver.set_window_size(size["width"], size["height"])

    def text(self) -> str:
        return self.css("main").text

    def post_raw(self, action: str, fields: dict[str, str]) -> None:
        """Submit a form the page does not offer (what a forged or hand-made request would send)."""
        old = self.css("body")
        self.driver.execute_script(
            "const f = document.createElement('form'); f.method = 'post'; f.action = arguments[0];"
            "for (const [k, v] of Object.entries(arguments[1])) {"
            "  const i = document.createElement('input'); i.type = 'hidden'; i.name = k; i.value = v; f.append(i); }"
            "document.body.append(f); f.submit();",
            self.base + action,
            fields,
        )
        WebDriverWait(self.driver, 30).until(lambda d: _stale(old))


def _stale(element: WebElement) -> bool:
    try:
        element.is_enabled()
        return False
    except Exception:
        return True


@pytest.fixture(scope="module")
def ui(browser: WebDriver, server: ServeProcess, shots: Path) -> Ui:
    return Ui(browser, server, shots)


def _memory_link(ui: Ui, words: str) -> str:
    for link in ui.all("a.mem-text"):
        if words in link.text:
            href: str = link.get_attribute("href") or ""
            return href.split("/ui", 1)[1]
    raise AssertionError(f"no memory with {words!r} on {ui.driver.current_url}: {ui.text()[:500]}")


def test_sign_in_and_browse_the_users(ui: Ui) -> None:
    ui.sign_in("not-a-key")
    assert "the API key is not valid" in ui.css("[role=alert]").text
    ui.sign_in(KEYS["FLOWMEM_UI_KEY"])
    # One workspace: straight to its users, each counted.
    assert ui.driver.current_url.endswith("/ui/w/demo")
    rows = {row.find_element(By.CSS_SELECTOR, "th").text: row.text for row in ui.all("tbody tr")}
    assert set(rows) == {"alice", "bob", "carol"}
    assert "observation" in rows["alice"] and "2024-07-03" in rows["alice"]
    cookie = ui.driver.get_cookie("flowmem_ui")
    assert cookie is not None and cookie["httpOnly"] and cookie["sameSite"] == "Strict"
    assert KEYS["FLOWMEM_UI_KEY"] not in cookie["value"]
    ui.shot("users")


def test_a_users_memories_filtered_and_a_script_shown_as_text(ui: Ui) -> None:
    ui.go("/w/demo/u/alice")
    assert "6 memories match" in ui.css("#count").text
    ui.shot("memories")
    script = next(link for link in ui.all("a.mem-text") if "window.__pwned" in link.text)
    assert script.text == SCRIPT  # the markup is the text, not elements
    assert ui.driver.execute_script("return window.__pwned") is None
    assert not ui.all("main b")
    ui.fill("#f-text", "Lisbon")
    ui.submit(".filters button")
    assert [link.text for link in ui.all("a.mem-text")] == [FACTS[-1][0]]
    ui.go("/w/demo/u/alice?status=expired")
    assert [link.text for link in ui.all("a.mem-text")] == [FACTS[0][0]]  # the move expired Berlin
    ui.go("/w/demo/u/alice?since=2024-06-09&until=2024-06-10&order=oldest")
    assert [link.text for link in ui.all("a.mem-text")] == [FACTS[1][0], FACTS[2][0]]


def test_search_as_the_assistant_with_every_factor_drawn(ui: Ui) -> None:
    ui.go("/w/demo/u/alice/search")
    ui.fill("#s-q", "what did I do last weekend?")
    ui.driver.execute_script("document.getElementById('s-at').value = '2024-06-12T20:00'")
    ui.fill("#s-k", "3")
    ui.submit(".filters button")
    results = ui.all("li.result")
    assert results, ui.text()[:1000]
    first = results[0]
    factors = [
        row.find_element(By.CSS_SELECTOR, "th").text for row in first.find_elements(By.CSS_SELECTOR, "tr.factor")
    ]
    assert "cosine" in factors and factors[-1] == "final"
    widths = [float(rect.get_attribute("width") or 0) for rect in ui.all("li.result tr.final rect.fill")]
    assert max(widths) == pytest.approx(100.0) and all(0 <= w <= 100 for w in widths)
    assert "time (extract_time_op)" in ui.text()  # the query's time, as --explain says it
    ui.shot("search")


def test_a_memory_timeline_after_a_supersession(ui: Ui) -> None:
    ui.go("/w/demo/u/alice?status=expired")
    ui.go(_memory_link(ui, "Berlin"))
    events = [e.find_element(By.CSS_SELECTOR, ".chip").text for e in ui.all(".timeline .event")]
    assert events == ["add", "expire"]
    ui.submit(".card .link-row a")  # Superseded by …
    assert "We moved to Lisbon" in ui.css("#content").text
    ui.shot("memory")
    ui.driver.set_window_size(390, 844)  # a phone
    ui.shot("memory-phone")
    ui.driver.execute_cdp_cmd(
        "Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]}
    )
    ui.driver.set_window_size(1280, 900)
    ui.go("/w/demo/u/alice/search?q=where+do+I+live&at=2024-07-04T10:00")
    ui.shot("search-dark")
    ui.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})


def test_a_chat_sessions_window_and_what_left_it(ui: Ui) -> None:
    ui.go("/w/demo/u/carol")
    ui.css("a.button[href$='/session']").click()
    ui.fill("#c-id", "chat-1")
    ui.submit(".filters button")
    window = [item.find_element(By.CSS_SELECTOR, ".mem-text").text for item in ui.all("ol.window li")]
    assert window and window == TURNS[-len(window) :]
    assert "messages have left the window" in ui.text()
    # what left it is listed as the memories it became, newest first, each a link to its page
    flushed = [item.find_element(By.CSS_SELECTOR, "a.mem-text").text for item in ui.all("ol.flushed li")]
    assert flushed and set(flushed) <= set(TURNS[: -len(window)])
    ui.shot("session")


def test_edit_a_memory_keeps_its_history(ui: Ui) -> None:
    ui.go("/w/demo/u/alice")
    ui.go(_memory_link(ui, "Nibbles"))
    ui.fill("#edit-content", "My dog Nibbles loves the beach and the park")
    ui.submit("#save")
    assert "Saved" in ui.css("[role=status]").text
    assert ui.css("#content").text == "My dog Nibbles loves the beach and the park"
    assert ui.css(".timeline .ev-update .was").text.endswith("My dog Nibbles loves the beach")
    ui.shot("memory-edited")
    ui.submit("#expire")
    assert "Expired" in ui.css("[role=status]").text
    assert [e.find_element(By.CSS_SELECTOR, ".chip").text for e in ui.all(".timeline .event")] == [
        "add", "update", "expire"
    ]  # fmt: skip


def test_forget_a_user_after_a_dry_run_and_a_typed_confirmation(ui: Ui) -> None:
    ui.go("/w/demo/u/bob/forget")
    assert "2 memories" in ui.css("#dry-run").text
    ui.shot("forget")
    ui.fill("#confirm", "alice")
    ui.submit("#forget")
    assert "nothing was erased" in ui.css("[role=alert]").text
    ui.go("/w/demo")
    assert "bob" in ui.text()
    ui.go("/w/demo/u/bob/forget")
    ui.fill("#confirm", "bob")
    ui.submit("#forget")
    assert "Erased 2 memories" in ui.css("[role=status]").text
    ui.go("/w/demo")
    assert [row.find_element(By.CSS_SELECTOR, "th").text for row in ui.all("tbody tr")] == ["alice", "carol"]


def test_a_post_without_its_csrf_token_is_refused(ui: Ui, server: ServeProcess) -> None:
    ui.go("/w/demo/u/alice")
    path = _memory_link(ui, "dim-sum")
    ui.post_raw(f"{path}/edit", {"content": "forged"})
    assert "security token (CSRF)" in ui.text()
    ui.shot("csrf-refused")
    ui.post_raw(f"{path}/edit", {"content": "forged", "csrf": "a-guess"})
    assert "security token (CSRF)" in ui.text()
    ui.go(path)
    assert "dim-sum" in ui.css("#content").text


def test_a_read_only_key_sees_no_edit_controls_and_is_refused(ui: Ui) -> None:
    ui.sign_in(KEYS["FLOWMEM_UI_RO"])
    ui.go("/w/demo/u/alice")
    path = _memory_link(ui, "dim-sum")
    ui.go(path)
    assert ui.css(".badge.ro").text == "read-only"
    ui.shot("read-only-memory")
    assert not ui.all("#save") and not ui.all("#expire") and not ui.all("#delete") and not ui.all("textarea")
    csrf = ui.css("form[action$='/signout'] input[name=csrf]").get_attribute("value") or ""
    ui.post_raw(f"{path}/delete", {"csrf": csrf})  # with a valid token: the key decides
    assert "read-only" in ui.text() and "403" in ui.css("h1").text
    ui.shot("read-only-refused")
    ui.go(path)
    assert "dim-sum" in ui.css("#content").text
    ui.go("/w/demo/u/alice/forget")
    assert not ui.all("#forget")


def test_the_host_check_of_v1_guards_the_pages(server: ServeProcess) -> None:
    response = httpx.get(f"{server.url}/ui/signin", headers={"Host": "attacker.example"})
    assert response.status_code == 421
    page = httpx.get(f"{server.url}/ui/signin")
    assert page.status_code == 200 and "script-src 'self'" in page.headers["content-security-policy"]
