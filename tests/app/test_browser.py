"""Real-browser smoke test: `streamlit run app.py` on a loopback port, driven by Debian's chromium
through playwright.

Opens the landing page and every page, asserts that no Streamlit exception box
([data-testid="stException"]) appears, that the Policy Designer shows the record-level reach,
that a small XOR-3 run of the Synthesis Runner produces its results table, and that the
Public-aware sampler releases rows and displays beta (the engine's value).  Screenshots go
to test-artifacts/browser/ (gitignored).  Skipped when /usr/bin/chromium is absent, unless
BLOWFISH_REQUIRE_BROWSER=1 (then it fails).  The server is always killed; every wait is bounded.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = os.path.join(ROOT, "test-artifacts", "browser")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SERVER_START_TIMEOUT = 90.0
PAGE_TIMEOUT_MS = 60_000
RUN_TIMEOUT_MS = 180_000
# url path of each page (Streamlit strips the order prefix and the extension) and a text it shows
PAGES = [
    ("", "landing", "Blowfish Studio"),
    ("Policy_Designer", "policy_designer", "Policy Designer"),
    ("Voronoi_Explorer", "voronoi_explorer", "Voronoi Explorer"),
    ("Synthesis_Runner", "synthesis_runner", "Synthesis Runner"),
    ("Temperature_Pilot", "temperature_pilot", "Temperature Pilot"),
    ("Selection_Lab", "selection_lab", "Selection Lab"),
    ("Public_Aware_Sampler", "public_aware_sampler", "Public-aware sampler"),
]


def _require_browser() -> None:
    if os.path.exists(CHROMIUM):
        return
    if os.environ.get("BLOWFISH_REQUIRE_BROWSER") == "1":
        pytest.fail(f"{CHROMIUM} is missing but BLOWFISH_REQUIRE_BROWSER=1 (install Debian's chromium)")
    pytest.skip(f"{CHROMIUM} not installed (set BLOWFISH_REQUIRE_BROWSER=1 to make this a failure)")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_healthy(url: str, proc: subprocess.Popen, log_path: str) -> None:
    deadline = time.monotonic() + SERVER_START_TIMEOUT
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            with open(log_path, encoding="utf-8", errors="replace") as f:
                raise AssertionError(f"streamlit exited with {proc.returncode}:\n{f.read()[-3000:]}")
        try:
            with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.5)
    raise AssertionError(f"streamlit did not answer on {url} within {SERVER_START_TIMEOUT:.0f} s")


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=15)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(timeout=15)


@pytest.fixture(scope="module")
def server():
    """A `streamlit run app.py` subprocess on a free loopback port; yields its base URL."""
    _require_browser()
    os.makedirs(ARTIFACTS, exist_ok=True)
    port = _free_port()
    log_path = os.path.join(ARTIFACTS, "streamlit.log")
    log = open(log_path, "w", encoding="utf-8")
    cmd = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
           "--server.port", str(port), "--server.address", "127.0.0.1",
           "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        url = f"http://127.0.0.1:{port}"
        _wait_healthy(url, proc, log_path)
        yield url
    finally:
        _stop(proc)
        log.close()


def _wait_idle(page, timeout_ms: int = PAGE_TIMEOUT_MS) -> None:
    """Wait until the app has rendered and no script run is in progress (bounded)."""
    page.wait_for_selector('[data-testid="stApp"]', timeout=timeout_ms)
    page.wait_for_selector('[data-testid="stMainBlockContainer"], [data-testid="stMain"]', timeout=timeout_ms)
    deadline = time.monotonic() + timeout_ms / 1000
    quiet = 0
    page.wait_for_timeout(300)  # let a just-triggered rerun start
    while time.monotonic() < deadline:
        running = page.locator('[data-testid="stStatusWidget"]').count() > 0 or \
            page.locator('[data-testid="stSkeleton"]').count() > 0 or \
            page.locator('[data-stale="true"]').count() > 0
        quiet = 0 if running else quiet + 1
        if quiet >= 3:
            return
        page.wait_for_timeout(200)
    raise AssertionError("the app kept running past the timeout")


def _scaled(ms: float) -> float:
    """A wait of ``ms`` scaled with the machine's load (tests/conftest.py's apptest_timeout_scale)."""
    from tests.conftest import apptest_timeout_scale

    return ms * apptest_timeout_scale()


def _assert_no_exception(page, name: str) -> None:
    boxes = page.locator('[data-testid="stException"]')
    if boxes.count():
        page.screenshot(path=os.path.join(ARTIFACTS, f"{name}_exception.png"), full_page=True)
        raise AssertionError(f"{name}: Streamlit exception box:\n{boxes.first.inner_text()[:2000]}")


def _metric_value(page, label: str) -> str:
    m = page.locator('[data-testid="stMetric"]').filter(has_text=label).first
    return m.locator('[data-testid="stMetricValue"]').inner_text().strip()


def _set_number(page, label: str, value: str) -> None:
    box = page.get_by_label(label, exact=True)
    box.fill(value)
    box.press("Enter")
    _wait_idle(page)


def test_every_page_in_chromium(server):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.set_default_timeout(PAGE_TIMEOUT_MS)
            for path, name, text in PAGES:
                page.goto(f"{server}/{path}", timeout=PAGE_TIMEOUT_MS)
                _wait_idle(page)
                page.get_by_text(text).first.wait_for(timeout=PAGE_TIMEOUT_MS)
                _assert_no_exception(page, name)
                if name == "policy_designer":
                    assert _metric_value(page, "Record-level reach") == "0.0357"  # XOR-3: 1/28
                    assert _metric_value(page, "Noise ratio q") == "0.53"
                if name == "selection_lab":
                    assert _metric_value(page, "Exact δ at claimed ε") == "0.46931"  # §4.1, G = 10
                    page.get_by_text("demonstration: not private").first.wait_for(timeout=PAGE_TIMEOUT_MS)
                    # every broken calibration is labelled on screen (the radio's options)
                    for broken in ("local sensitivity b = max(b0, LS(x))", "smooth sensitivity, fixed β and λ"):
                        page.get_by_text(f"{broken} — demonstration: not private", exact=True).first.wait_for(
                            timeout=PAGE_TIMEOUT_MS)
                page.screenshot(path=os.path.join(ARTIFACTS, f"{name}.png"), full_page=True)
        finally:
            browser.close()


def test_policy_designer_edits_in_chromium(server):
    """Adult without its table: the read-outs follow the age threshold, then Table 3 loads
    (workclass blocks: 7 protected pairs, 4 components; income complete -> reach 0.2).
    Editing the canvas grid by mouse coordinates proved flaky under load; block editing is
    covered by the AppTests of studio.widgets instead."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 4200})
            page.set_default_timeout(PAGE_TIMEOUT_MS)
            # issue 16: the data source is the Data step; the read-outs are on the Policy step
            page.goto(f"{server}/Data", timeout=PAGE_TIMEOUT_MS)
            _wait_idle(page)
            page.get_by_text("Adult preset", exact=True).click()
            _wait_idle(page)
            page.get_by_text("No table (policy design only)", exact=True).click()
            _wait_idle(page)
            _step_link(page, "Policy_Designer").click()
            _wait_idle(page)
            assert _metric_value(page, "Record-level reach") == "0.0192"
            assert _metric_value(page, "Noise ratio q") == "0.31"
            page.get_by_role("button", name="Load preset policies (Table 3, all attributes)").click()
            _wait_idle(page)
            assert _metric_value(page, "Record-level reach") == "0.2000"
            captions = page.locator('[data-testid="stCaptionContainer"]')
            assert "7 protected pairs; 4 connected components." in captions.all_inner_texts()
            page.screenshot(path=os.path.join(ARTIFACTS, "policy_designer_adult_table3.png"), full_page=True)
        finally:
            browser.close()


def _runner_has_run_button() -> bool:
    path = os.path.join(ROOT, "pages", "run.py")
    with open(path, encoding="utf-8") as f:
        return 'button("Run"' in f.read()


def test_synthesis_runner_small_xor3_run(server):
    if not _runner_has_run_button():
        pytest.skip("TODO(lead): pages/run.py has no 'Run' button yet")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.set_default_timeout(PAGE_TIMEOUT_MS)
            page.goto(f"{server}/Synthesis_Runner", timeout=PAGE_TIMEOUT_MS)
            _wait_idle(page)
            _assert_no_exception(page, "runner_before")
            _set_number(page, "Rounds T", "2")
            pop = page.get_by_label("Population schedule", exact=True)
            pop.fill("64x2")
            pop.press("Enter")
            _wait_idle(page)
            _set_number(page, "Release size (records)", "64")
            _set_number(page, f"Paired seeds (at most {50})", "1")
            page.get_by_role("button", name="Run", exact=True).click()
            page.get_by_text("paired seed(s), 95% t-interval").first.wait_for(timeout=RUN_TIMEOUT_MS)
            _wait_idle(page, RUN_TIMEOUT_MS)
            _assert_no_exception(page, "runner_after")
            assert page.locator('[data-testid="stDataFrame"], [data-testid="stTable"]').count() > 0
            page.screenshot(path=os.path.join(ARTIFACTS, "synthesis_runner_results.png"), full_page=True)
        finally:
            browser.close()


# ----------------------------------------------------------------- issue 16: the guided flow
FLOW = [  # (url path of the step, screenshot, a text the step shows)
    ("", "flow_1_home", "The steps"),
    ("Data", "flow_2_data", "1 · Data and public domain"),
    ("Policy_Designer", "flow_3_policy", "Live read-outs"),
    ("Temperature_Pilot", "flow_4_tune", "Temperature Pilot"),
    ("Synthesis_Runner", "flow_5_run", "Synthesis Runner"),
    ("Release", "flow_6_release", "Privacy ledger in words"),
]


def _step_link(page, url_path: str):
    """The step bar's link to a step (the first link whose href ends with its url path)."""
    return page.locator(f'[data-testid="stPageLink-NavLink"][href="{url_path}"], '
                        f'[data-testid="stPageLink-NavLink"][href$="/{url_path}"]').first


def test_flow_home_to_release_in_chromium(server):
    """Walk Home → Data → Policy → Tune τ → Run → Release by the step bar; a screenshot of every step.
    Release is disabled on arrival (no budget chosen) and opens after the Policy step; the Run step
    runs a tiny XOR-3 job; the Release step offers the run bundle and shows the CLI command."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 3200})  # tall: the whole step in one shot
            page.set_default_timeout(PAGE_TIMEOUT_MS)
            page.goto(server, timeout=PAGE_TIMEOUT_MS)
            _wait_idle(page)
            page.get_by_text("The steps").first.wait_for(timeout=PAGE_TIMEOUT_MS)
            # gated: the Release link is disabled before a budget is chosen
            rel = page.locator('[data-testid="stPageLink"]').filter(has_text="Release").first
            assert rel.locator('[data-testid="stPageLink-NavLink"]').count() == 0 or \
                rel.locator('[disabled], [aria-disabled="true"]').count() > 0, rel.inner_html()[:500]
            for path, name, text in FLOW:
                if path:
                    _step_link(page, path).click()
                    _wait_idle(page)
                page.get_by_text(text).first.wait_for(timeout=PAGE_TIMEOUT_MS)
                _assert_no_exception(page, name)
                if name == "flow_3_policy":
                    assert _metric_value(page, "Record-level reach") == "0.0357"
                    assert _metric_value(page, "Privacy guarantee") == "ε = 0.1 at δ = 10⁻⁵"
                    page.get_by_text("BF-Soft adds 0.53× Hard's noise here").first.wait_for()
                if name == "flow_5_run" and _runner_has_run_button():
                    _set_number(page, "Rounds T", "2")
                    pop = page.get_by_label("Population schedule", exact=True)
                    pop.fill("64x2")
                    pop.press("Enter")
                    _wait_idle(page)
                    _set_number(page, "Release size (records)", "64")
                    _set_number(page, f"Paired seeds (at most {50})", "2")
                    page.get_by_role("button", name="Run", exact=True).click()
                    page.get_by_text("paired seed(s), 95% t-interval").first.wait_for(timeout=RUN_TIMEOUT_MS)
                    _wait_idle(page, RUN_TIMEOUT_MS)
                    _assert_no_exception(page, "flow_5_run_after")
                if name == "flow_6_release":
                    page.get_by_role("button", name="Download the study bundle (seeded: for study, not for publication)").wait_for()
                    assert page.locator('[data-testid="stCode"]').filter(
                        has_text="python -m blowfish_core synth").count() >= 1
                page.screenshot(path=os.path.join(ARTIFACTS, f"{name}.png"), full_page=True)
        finally:
            browser.close()


def test_public_aware_sampler_shows_beta_in_chromium(server):
    """XOR-3 defaults (X_1, X_2 marginal, generated public rows), n_samples = 256: the page shows
    beta = the engine's beta_min at the chosen floor, with no exception box."""
    from playwright.sync_api import sync_playwright

    from blowfish_core.workflows.public_sampler import public_aware_sample
    from studio.state import default_studio

    s = default_studio()
    ref = public_aware_sample(s.schema, ["X_1", "X_2"], s.private, s.public, 1.0, 1e-5, 256, evaluate=False)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.set_default_timeout(PAGE_TIMEOUT_MS)
            page.goto(f"{server}/Public_Aware_Sampler", timeout=PAGE_TIMEOUT_MS)
            _wait_idle(page)
            _assert_no_exception(page, "sampler_before")
            _set_number(page, "n_samples (rows to release)", "256")
            page.get_by_role("button", name="Study preview (seeded)").click()
            page.locator('[data-testid="stMetric"]').filter(has_text="beta (mixing weight)").first.wait_for(
                timeout=RUN_TIMEOUT_MS)
            _wait_idle(page, RUN_TIMEOUT_MS)
            _assert_no_exception(page, "sampler_after")
            shown = _metric_value(page, "beta (mixing weight)")
            assert 0.0 < float(shown) <= 1.0
            assert shown == f"{ref.beta:.6g}"
            page.screenshot(path=os.path.join(ARTIFACTS, "public_aware_sampler_release.png"), full_page=True)
        finally:
            browser.close()


def test_voronoi_click_adds_a_candidate_in_chromium(server):
    """Issue 16 class mode: a click on an empty spot of the hard-vote plot adds a candidate there
    (Streamlit's plotly selection event); the takeaway line stays; no exception box."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 2000})
            page.set_default_timeout(PAGE_TIMEOUT_MS)
            page.goto(server, timeout=PAGE_TIMEOUT_MS)
            _wait_idle(page)
            _step_link(page, "Voronoi_Explorer").click()
            _wait_idle(page)
            page.get_by_text("A protected step that crosses a boundary").first.wait_for()
            box = page.locator('[data-testid="stPlotlyChart"]').first.bounding_box()
            page.mouse.click(box["x"] + box["width"] * 0.30, box["y"] + box["height"] * 0.80)
            page.get_by_text("6 candidates after your clicks on the plot.").first.wait_for(timeout=PAGE_TIMEOUT_MS)
            _wait_idle(page)
            _assert_no_exception(page, "voronoi_click")
            page.screenshot(path=os.path.join(ARTIFACTS, "voronoi_click_added.png"), full_page=True)
        finally:
            browser.close()


# ------------------------------------------- issue 24: schema edits and the budget survive the walk
def _small_csv() -> str:
    """A 120-row comma-separated table with no missing values: two numeric and three text columns."""
    rows = [f"{20 + i % 50},{'abc'[i % 3]},{i * 37 % 3000 - 200},{['jan', 'feb', 'mar'][i % 3]},"
            f"{'yes' if i % 4 else 'no'}" for i in range(120)]
    return "age,job,balance,month,y\n" + "\n".join(rows) + "\n"


def _schema_grid(page):
    """The schema editor (a glide data grid inside the 'Apply schema edits' form)."""
    grid = page.locator('[data-testid="stForm"] [data-testid="stDataFrame"]').first
    grid.wait_for(timeout=PAGE_TIMEOUT_MS)
    return grid


def _grid_cell(grid, col: int, row: int) -> str:
    """The text of a cell, read off the grid's accessibility table (glide-cell-<col>-<row>)."""
    return grid.locator(f"#glide-cell-{col}-{row}").inner_text().strip()


def _grid_select(page, grid, col: int, row: int) -> None:
    """Select a cell by keyboard: a click on the first cell (the disabled 'column' of row 0), then arrows
    (no pixel arithmetic beyond the header height, which is fixed)."""
    page.wait_for_timeout(700)  # two clicks on one spot in quick succession would be a double click
    _wait_idle(page)
    # the flake of issue 24: the Data-source radio keeps the focus after its click; a grid click whose
    # focus change lands late (CPU load) sent the arrows to the radio, which cycled the source to the
    # Bank preset and so removed the CSV's schema grid.  Drop that focus, and press keys only once the
    # grid holds the focus.
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    handle = grid.element_handle()
    for _ in range(3):
        box = grid.bounding_box()
        page.mouse.click(box["x"] + 20, box["y"] + 35 + 17)
        try:
            page.wait_for_function("g => g.contains(document.activeElement)", arg=handle, timeout=_scaled(5_000))
            break
        except Exception:  # noqa: BLE001 - playwright's TimeoutError: click again
            page.wait_for_timeout(700)
    else:
        raise AssertionError("the schema grid never took the keyboard focus")
    for _ in range(row):
        page.keyboard.press("ArrowDown")
    for _ in range(col):
        page.keyboard.press("ArrowRight")


def _dataset_line(page) -> str:
    return page.get_by_text("Dataset:").first.locator("..").inner_text().strip()


def _budget_shown(page) -> tuple[str | None, str]:
    """The budget control as drawn: the ε slider's value and the δ box's text."""
    eps = page.get_by_role("slider", name="Privacy budget ε (log scale)").first.get_attribute("aria-valuetext")
    delta = page.get_by_role("combobox", name="δ", exact=True).first.input_value()
    return eps, delta.strip()


def test_schema_edits_and_budget_survive_the_walk_in_chromium(server, tmp_path):
    """Issue 24, Must-show 1: upload a CSV on the Data step, untick a column and change a bound in the
    schema editor (batched: nothing applies until "Apply schema edits"), set ε and δ on the Policy
    step, walk Tune τ → Run → Release → Data → Policy and read the edits and the budget off every page."""
    from playwright.sync_api import sync_playwright

    csv = tmp_path / "small.csv"
    csv.write_text(_small_csv(), encoding="utf-8")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 2400})
            page.set_default_timeout(_scaled(PAGE_TIMEOUT_MS))
            # from the root: a deep link on a fresh server can race the router ("Page not found" dialog)
            page.goto(server, timeout=PAGE_TIMEOUT_MS)
            _wait_idle(page)
            _step_link(page, "Data").click()
            _wait_idle(page)
            page.get_by_text("Upload a CSV", exact=True).click()
            _wait_idle(page)
            page.locator('[data-testid="stFileUploader"] input[type="file"]').first.set_input_files(str(csv))
            _wait_idle(page)
            page.get_by_text("Schema (public domain)").first.wait_for()
            _assert_no_exception(page, "walk_data_loaded")
            assert "5 modeled attributes (age, job, balance, month, y)" in _dataset_line(page), _dataset_line(page)
            grid = _schema_grid(page)
            names = [_grid_cell(grid, 0, r) for r in range(5)]
            assert names == ["age", "job", "balance", "month", "y"], names
            model_col, hi_col = 1, 4  # studio.data_source.SCHEMA_TABLE_COLUMNS (domain hidden)
            assert _grid_cell(grid, model_col, 2) == "true" and _grid_cell(grid, hi_col, 0) == "69"

            # two cell edits: untick 'balance', type the public upper bound 90 for 'age'
            for _ in range(3):  # the grid's text editor opens asynchronously; retry a lost keystroke
                _grid_select(page, grid, hi_col, 0)
                page.keyboard.press("Enter")  # opens the cell's text editor (an overlay)
                try:
                    page.wait_for_function("() => document.activeElement?.tagName === 'TEXTAREA'", timeout=5_000)
                except Exception:  # noqa: BLE001 - playwright's TimeoutError: try again
                    print("no textarea:", page.evaluate("() => document.activeElement?.outerHTML.slice(0, 300)"))
                    page.keyboard.press("Escape")
                    continue
                page.locator("textarea:focus").fill("90")  # sets the value and fires React's input event
                page.wait_for_timeout(200)
                page.keyboard.press("Enter")
                page.wait_for_timeout(500)
                if _grid_cell(grid, hi_col, 0) == "90":
                    break
                page.screenshot(path=os.path.join(ARTIFACTS, "walk_debug_text_edit.png"))
            _grid_select(page, grid, model_col, 2)
            page.keyboard.press(" ")
            page.wait_for_timeout(500)
            _wait_idle(page)
            assert _grid_cell(grid, model_col, 2) == "false" and _grid_cell(grid, hi_col, 0) == "90"
            # batched: the edits have not rerun the page (the schema in use is unchanged)
            assert "5 modeled attributes" in _dataset_line(page), _dataset_line(page)
            page.screenshot(path=os.path.join(ARTIFACTS, "walk_1_data_edited.png"), full_page=True)
            page.get_by_role("button", name="Apply schema edits").click()
            _wait_idle(page)
            _assert_no_exception(page, "walk_data_applied")
            applied = "4 modeled attributes (age, job, month, y)"
            assert applied in _dataset_line(page), _dataset_line(page)
            page.screenshot(path=os.path.join(ARTIFACTS, "walk_2_data_applied.png"), full_page=True)

            # the budget on the Policy step: ε two steps up the log slider, δ = 10⁻⁶
            _step_link(page, "Policy_Designer").click()
            _wait_idle(page)
            page.get_by_text("Live read-outs").first.wait_for()
            slider = page.get_by_role("slider", name="Privacy budget ε (log scale)").first
            slider.focus()
            page.keyboard.press("ArrowRight")
            page.keyboard.press("ArrowRight")
            _wait_idle(page)
            page.get_by_role("combobox", name="δ", exact=True).first.click()
            page.get_by_role("option", name="10⁻⁶", exact=True).click()
            _wait_idle(page)
            _assert_no_exception(page, "walk_policy")
            eps, delta = _budget_shown(page)
            assert eps not in (None, "0.1") and delta == "10⁻⁶", (eps, delta)
            guarantee = _metric_value(page, "Privacy guarantee")
            assert guarantee == f"ε = {eps} at δ = 10⁻⁶", guarantee
            page.screenshot(path=os.path.join(ARTIFACTS, "walk_3_policy_budget.png"), full_page=True)

            # every step and back; each shows no exception; Run shows the same budget
            for path, name in (("Temperature_Pilot", "walk_4_tune"), ("Synthesis_Runner", "walk_5_run"),
                               ("Release", "walk_6_release"), ("Data", "walk_7_data_again"),
                               ("Policy_Designer", "walk_8_policy_again")):
                _step_link(page, path).click()
                _wait_idle(page)
                _assert_no_exception(page, name)
                page.screenshot(path=os.path.join(ARTIFACTS, f"{name}.png"), full_page=True)
                if name == "walk_5_run":
                    assert _budget_shown(page) == (eps, delta), (name, _budget_shown(page))
                if name == "walk_7_data_again":
                    assert page.get_by_role("radio", name="Upload a CSV").is_checked()
                    assert applied in _dataset_line(page), _dataset_line(page)
                    grid = _schema_grid(page)
                    assert _grid_cell(grid, model_col, 2) == "false", "the unticked column came back"
                    assert _grid_cell(grid, hi_col, 0) == "90", "the typed bound was lost"
                if name == "walk_8_policy_again":
                    assert _budget_shown(page) == (eps, delta), (name, _budget_shown(page))
                    assert _metric_value(page, "Privacy guarantee") == guarantee
        except BaseException:
            if browser.contexts and browser.contexts[0].pages:  # the state at the failure, for CI
                browser.contexts[0].pages[0].screenshot(path=os.path.join(ARTIFACTS, "walk_failure.png"), full_page=True)
            raise
        finally:
            browser.close()


#: issue 25: the words of a bf-mst release on XOR-3 (the preset protects X_1 only), held here.
METHOD_LABEL_BF_MST = "bf-MST (MST under the policy: exact per-marginal sensitivity)"  # the Methods option
BF_MST_EXACT = "bf-MST: Released exactly (not protected by the policy, no noise): the marginals (X_2), (X_3), (Y)"


def test_release_step_releases_bf_mst_in_chromium(server):
    """Issue 25, must-show 4: on XOR-3 the Run step runs bf-MST beside the default methods and names the
    marginals it released exactly; the Release step releases bf-MST (chosen in "Method to release") and
    its verdict and its ledger name them (the 1-ways without X_1 first)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 3200})
            page.set_default_timeout(_scaled(PAGE_TIMEOUT_MS))
            page.goto(server, timeout=PAGE_TIMEOUT_MS)
            _wait_idle(page)
            _step_link(page, "Policy_Designer").click()  # the default budget is chosen on the Policy step
            _wait_idle(page)
            page.get_by_text("Live read-outs").first.wait_for()
            _step_link(page, "Synthesis_Runner").click()
            _wait_idle(page)
            methods = page.locator('[data-testid="stMultiSelect"]').filter(has_text="Methods").first
            methods.locator("input").first.click()
            page.get_by_role("option", name=METHOD_LABEL_BF_MST, exact=True).click()
            page.keyboard.press("Escape")
            _wait_idle(page)
            _set_number(page, "Rounds T", "2")
            pop = page.get_by_label("Population schedule", exact=True)
            pop.fill("64x2")
            pop.press("Enter")
            _wait_idle(page)
            _set_number(page, "Release size (records)", "64")
            _set_number(page, f"Paired seeds (at most {50})", "1")
            page.get_by_role("button", name="Run", exact=True).click()
            page.get_by_text("paired seed(s), 95% t-interval").first.wait_for(timeout=_scaled(RUN_TIMEOUT_MS))
            _wait_idle(page, _scaled(RUN_TIMEOUT_MS))
            _assert_no_exception(page, "bf_mst_run")
            page.get_by_text(BF_MST_EXACT).first.wait_for()  # the Run step's result names them
            page.screenshot(path=os.path.join(ARTIFACTS, "bf_mst_1_run.png"), full_page=True)

            _step_link(page, "Release").click()
            _wait_idle(page)
            page.get_by_text("Privacy ledger in words").first.wait_for()
            page.locator('[data-testid="stSelectbox"]').filter(has_text="Method to release").first.click()
            page.get_by_role("option").filter(has_text="bf-MST").first.click()
            _wait_idle(page)
            make = page.get_by_role("button", name="Make a release (bf-MST, ")
            make.click()
            page.get_by_text("Release made (unseeded, OS entropy").first.wait_for(timeout=_scaled(RUN_TIMEOUT_MS))
            _wait_idle(page, _scaled(RUN_TIMEOUT_MS))
            _assert_no_exception(page, "bf_mst_release")
            banners = page.locator('[data-testid="stAlert"]').filter(
                has_text="Released exactly: what the policy does not protect").all_inner_texts()
            assert len(banners) == 1, page.locator('[data-testid="stAlert"]').all_inner_texts()
            assert BF_MST_EXACT in banners[0] and "; noisy: (X_1)" in banners[0], banners
            # the release's ledger view (below the planned one, whose method line names no list)
            codes = page.locator('[data-testid="stCode"]').all_inner_texts()
            assert sum(BF_MST_EXACT in c for c in codes) == 1, codes
            page.screenshot(path=os.path.join(ARTIFACTS, "bf_mst_2_release.png"), full_page=True)
        except BaseException:
            if browser.contexts and browser.contexts[0].pages:
                browser.contexts[0].pages[0].screenshot(path=os.path.join(ARTIFACTS, "bf_mst_failure.png"),
                                                        full_page=True)
            raise
        finally:
            browser.close()
