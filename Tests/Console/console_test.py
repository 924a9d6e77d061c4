#!/usr/bin/python3
"""The ops console in a real browser: headless Chromium from Debian driven by Selenium, against the real binary.

Starts `.build/debug/livery serve` on 127.0.0.1 (port 0) with a temporary data folder, the repository's sample
skins and a tokens file (an editor, a viewer), then:
  - checks the console's security headers and that the admin API's whoami answers name and role;
  - refuses a wrong token at sign-in;
  - as the editor, from the browser only: uploads a skin twice (v1, v2), uploads an invalid one (the report shows
    file, JSON pointer and fix), releases v2 at 5 %, raises it to 50 % with the keyboard, turns the global kill
    switch on and off, rolls back to v1, and finds every one of those steps on the audit screen; after each step
    the admin API confirms the browser's change really happened;
  - provokes a 412 (another operator changes the skin meanwhile) and checks the console shows what changed;
  - signs in as the viewer and finds no write control on any screen;
  - posts phones' reports to the server's POST /api/v1/reports (signs read from the app's catalog) and finds each
    version's figures on the Skin screen's Health card (devices applied and failed, the failure rate, failures by
    stage, platform and app version, the adoption curve as SVG with its table), sets a release's guard in the
    release form, finds the release paused by that guard (the banner's figures), meets a 412 on Resume, resumes;
  - checks that every form control has a label, that the main flows work from the keyboard, that the colour
    parser reads every spelling docs/SKINS.md lists (and refuses look-alikes), and that the browser logged no
    Content-Security-Policy violation;
  - saves a screenshot of every screen into <temp>/screenshots (and with --docs DIR, copies the ones docs/CONSOLE.md shows there).

Prints one line per check and a last line `N passed, N failed`; exit status 0 only when nothing failed.
Every wait is bounded.

Usage: /usr/bin/python3 Tests/Console/console_test.py [--binary .build/debug/livery] [--docs docs/console] [--keep]
"""
import argparse
import datetime
import hashlib
import io
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import urllib.error
import urllib.request
import zipfile

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, TimeoutException, WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WAIT = 15  # seconds: the bound on every wait for the page or the server
SKIN_ID = "console-flow-2027"

# The screenshots docs/CONSOLE.md shows (docs/console/), refreshed with --docs docs/console.
DOC_SHOTS = ["02-skins", "03-skin", "03b-occurrences", "04b-phone-preview-dark", "05-release", "05c-release-conflict",
             "05e-release-festival", "05f-release-422", "06-timeline", "07-kill-switch", "08-device-preview",
             "10-upload-report", "11-audit", "05g-release-guard", "07-health", "07b-paused"]
# A rule's optional keys with their defaults (docs/SKINS.md, Windows that recur).
RULE_DEFAULTS = {"leapMonth": False, "startOffsetDays": 0, "endOffsetDays": 0, "startTime": "00:00:00", "endTime": "23:59:59", "ifMissing": "refuse"}
# Spring Festival (Chinese 1-1) by Gregorian year, issue 27's fixtures: the occurrence starts 7 days before.
SPRING_FESTIVAL = {2024: "2024-02-10", 2025: "2025-01-29", 2026: "2026-02-17", 2027: "2027-02-06", 2028: "2028-01-26"}
passed, failed = 0, 0


def check(name, condition, detail=""):
    global passed, failed
    if condition:
        passed += 1
        print(f"ok    {name}", flush=True)
    else:
        failed += 1
        print(f"FAIL  {name}" + (f": {detail}" if detail else ""), flush=True)
    return condition


class Server:
    """`livery serve` on 127.0.0.1 port 0; the port comes from its LIVERY_LISTENING line."""

    def __init__(self, binary, root, tokens_file):
        self.log_path = os.path.join(root, "server.log")
        self.log = open(self.log_path, "w")
        self.process = subprocess.Popen(
            [binary, "serve", "--host", "127.0.0.1", "--port", "0", "--data-dir", os.path.join(root, "data"),
             "--skins-dir", os.path.join(REPO, "skins"), "--tokens-file", tokens_file],
            stdout=subprocess.PIPE, stderr=self.log, text=True)
        self.port = None
        found = threading.Event()

        def read():
            for line in self.process.stdout:
                self.log.write(line)
                self.log.flush()
                if "LIVERY_LISTENING" in line and self.port is None:
                    self.port = int(line.strip().rsplit(":", 1)[1].rstrip('"}').split('"')[0])
                    found.set()

        threading.Thread(target=read, daemon=True).start()
        if not found.wait(WAIT):
            self.stop()
            raise RuntimeError("livery serve printed no LIVERY_LISTENING line within %ds; see %s" % (WAIT, self.log_path))
        self.base = f"http://127.0.0.1:{self.port}"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(self.base + "/readyz", timeout=2) as response:
                    if response.status == 200:
                        return
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(0.1)
        self.stop()
        raise RuntimeError("/readyz never answered 200 within 60 s; see %s" % self.log_path)

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        self.log.close()


def call(server, method, path, token, body=None, headers=None):
    """An admin API request from outside the browser: (status, headers, parsed JSON or None)."""
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(server.base + path, data=data, method=method)
    request.add_header("Authorization", "Bearer " + token)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=WAIT) as response:
            raw = response.read()
            return response.status, response.headers, (json.loads(raw) if raw else None)
    except urllib.error.HTTPError as error:
        raw = error.read()
        try:
            return error.code, error.headers, json.loads(raw)
        except ValueError:
            return error.code, error.headers, None


def skin_zip(path, title, release=None, bad_color=False, skin_id=SKIN_ID, tab_color=None):
    """A copy of the spring-festival sample as `skin_id` (the folder wrapped, as 'compress folder' makes it); with
    `tab_color`, another tab bar background (another package, so another skinSign)."""
    source = os.path.join(REPO, "skins", "spring-festival-2027")
    manifest = json.load(open(os.path.join(source, "skin.json")))
    manifest["id"], manifest["title"] = skin_id, title
    manifest.pop("release", None)
    if release:
        manifest["release"] = release
    config = json.load(open(os.path.join(source, "config.json")))
    if bad_color:
        config["home_tabbar"]["colors"]["color_background"] = "#GG0000"
    if tab_color:
        config["home_tabbar"]["colors"]["color_background"] = tab_color
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for folder, _, files in os.walk(source):
            for name in sorted(files):
                full = os.path.join(folder, name)
                relative = os.path.relpath(full, source)
                if relative == "skin.json":
                    archive.writestr("skin/skin.json", json.dumps(manifest))
                elif relative == "config.json":
                    archive.writestr("skin/config.json", json.dumps(config, ensure_ascii=False))
                else:
                    archive.write(full, "skin/" + relative)
    return path


class Console:
    def __init__(self, server, shots):
        options = webdriver.ChromeOptions()
        options.binary_location = "/usr/bin/chromium"
        for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                         "--window-size=1440,1000", "--force-device-scale-factor=1", "--lang=en-GB",
                         "--no-first-run", "--disable-extensions", "--disable-background-networking"):
            options.add_argument(argument)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        self.driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
        self.driver.set_page_load_timeout(WAIT)
        self.driver.set_script_timeout(WAIT)
        self.server = server
        self.shots = shots
        self.console_errors = []
        self.contrast = {}  # screen → texts below WCAG AA (4.5:1)

    def quit(self):
        try:
            self.driver.quit()
        except WebDriverException:
            pass

    def wait(self, condition, what, timeout=WAIT):
        try:
            # A screen re-rendered between finding an element and reading it: look again.
            return WebDriverWait(self.driver, timeout, poll_frequency=0.05,
                                 ignored_exceptions=(StaleElementReferenceException,)).until(lambda d: condition(d))
        except TimeoutException:
            raise AssertionError("timed out after %ss waiting for %s" % (timeout, what))

    def find(self, css, timeout=WAIT):
        return self.wait(lambda d: next((e for e in d.find_elements(By.CSS_SELECTOR, css) if e.is_displayed()), None), css, timeout)

    def text_in(self, css, text, timeout=WAIT):
        return self.wait(lambda d: any(text in e.text for e in d.find_elements(By.CSS_SELECTOR, css)), f"{text!r} in {css}", timeout)

    def button(self, label, within="body"):
        def found(d):
            for element in d.find_elements(By.CSS_SELECTOR, within + " button, " + within + " a.button"):
                if element.is_displayed() and element.is_enabled() and element.text.strip() == label:
                    return element
            return None
        return self.wait(found, f"button {label!r}")

    def go(self, hash_path, ready_css):
        """Opens a screen (again, when it is the current one) and waits for `ready_css` in the new screen only."""
        self.driver.execute_script("""
            const old = document.querySelector('#main > .screen');
            if (old) old.setAttribute('data-stale', '');
            if (location.hash === arguments[0]) window.dispatchEvent(new HashChangeEvent('hashchange'));
            else location.hash = arguments[0];""", hash_path)
        self.find("#main > .screen:not([data-stale]) " + ready_css)
        self.settle()

    def settle(self):
        """Waits until no 'Loading…' note is shown and every fetched image has loaded (bounded)."""
        self.wait(lambda d: d.execute_script(
            "return !document.querySelector('.loading') && Array.from(document.images).every(i => !i.getAttribute('src') ? i.classList.contains('broken') || !i.dataset.path : i.complete)"),
            "the screen to finish loading")

    def check_contrast(self, name):
        """Records every text of the current screen whose contrast with its background is below 4.5:1 (WCAG AA).

        The background is found by compositing the element's and its ancestors' background colours (none with a
        background image); the text colour is composited over it with the opacities on the way. Skins' own colours
        (inside the phone preview) and disabled controls (WCAG's inactive components) are not the console's."""
        found = self.driver.execute_script("""
            const parse = c => { const m = /rgba?\\(([^)]+)\\)/.exec(c); if (!m) return null;
              const p = m[1].split(/[\\s,\\/]+/).filter(Boolean).map(Number); return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1]; };
            const over = (t, b) => [0, 1, 2].map(i => t[i] * t[3] + b[i] * (1 - t[3])).concat([1]);
            const lum = c => { const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
              return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]); };
            const background = el => { const layers = [];
              for (let e = el; e; e = e.parentElement) { const cs = getComputedStyle(e);
                if (cs.backgroundImage !== 'none') return null;
                const b = parse(cs.backgroundColor); if (b && b[3] > 0) { layers.push(b); if (b[3] >= 1) break; } }
              let bg = [255, 255, 255, 1]; for (let i = layers.length - 1; i >= 0; i--) bg = over(layers[i], bg); return bg; };
            const bad = [];
            for (const el of document.querySelectorAll('body *')) {
              if (el.closest('.phone, svg, [hidden], dialog:not([open]), script, style, option, datalist, :disabled')) continue;
              if (!Array.from(el.childNodes).some(n => n.nodeType === 3 && n.textContent.trim())) continue;
              const r = el.getBoundingClientRect(); if (!r.width || !r.height) continue;
              const cs = getComputedStyle(el); if (cs.visibility === 'hidden') continue;
              let opacity = 1; for (let e = el; e; e = e.parentElement) opacity *= +getComputedStyle(e).opacity;
              if (opacity === 0) continue;
              const bg = background(el); if (!bg) continue;
              const c = parse(cs.color); const fg = over([c[0], c[1], c[2], c[3] * opacity], bg);
              const l1 = lum(fg), l2 = lum(bg), ratio = (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
              if (ratio < 4.5) bad.push(ratio.toFixed(2) + ':1 ' + el.tagName.toLowerCase() + (el.className ? '.' + String(el.className).split(' ').join('.') : '') + ' "' + el.textContent.trim().slice(0, 30) + '"');
            }
            return bad;""")
        if found:
            self.contrast[name] = found

    def shot(self, name, css=None):
        """Saves the window, or only the element `css` (smaller images for the docs)."""
        self.settle()
        self.check_contrast(name)
        self.driver.execute_script("document.getElementById('banner').hidden = true")  # the toast would cover content
        path = os.path.join(self.shots, name + ".png")
        if css:
            self.find(css).screenshot(path)
        else:
            self.driver.save_screenshot(path)
        return path

    def sign_in(self, token):
        self.driver.get(self.server.base + "/admin/")
        field = self.find("input[type=password]")
        field.clear()
        field.send_keys(token + Keys.ENTER)  # the keyboard: type, Enter submits

    def confirm(self, expect_text=None):
        """Confirms the open dialog from the keyboard: Tab from Cancel (focused first) to Confirm, then Enter."""
        dialog = self.find("dialog[open]")
        if expect_text:
            self.text_in("dialog[open]", expect_text)
        active = self.driver.switch_to.active_element
        check("the confirmation dialog focuses Cancel first", active.get_attribute("id") == "confirm-cancel")
        active.send_keys(Keys.TAB)
        self.driver.switch_to.active_element.send_keys(Keys.ENTER)
        self.wait(lambda d: not d.find_elements(By.CSS_SELECTOR, "dialog[open]"), "the dialog to close")
        return dialog

    def unlabelled_controls(self):
        return self.driver.execute_script("""
            const bad = [];
            for (const c of document.querySelectorAll('input, select, textarea, button')) {
              if (c.type === 'hidden' || c.closest('[hidden]') || (c.closest('dialog') && !c.closest('dialog').open)) continue;
              let name = c.getAttribute('aria-label') || '';
              if (!name && c.getAttribute('aria-labelledby')) name = document.getElementById(c.getAttribute('aria-labelledby'))?.textContent || '';
              if (!name && c.labels && c.labels.length) name = Array.from(c.labels).map(l => l.textContent).join(' ');
              if (!name && c.tagName === 'BUTTON') name = c.textContent;
              if (!name.trim()) bad.push(c.outerHTML.slice(0, 120));
            }
            return bad;""")

    def write_controls(self):
        """Write controls on the page: anything that would change state."""
        return self.driver.execute_script("""
            const words = /^(Release|Release…|Change release|Roll back|Stop|Turn on|Turn off|Review changes|Review release|Apply|Upload|Override…|Skip|Change dates…|Undo override|Undo skip|Review override|Resume)$/;
            const found = [];
            for (const e of document.querySelectorAll('button, a.button, input[type=file], input[type=range]')) {
              if (e.closest('dialog') || e.closest('[hidden]')) continue;
              if (e.matches('input') || words.test(e.textContent.trim())) found.push(e.outerHTML.slice(0, 100));
            }
            for (const a of document.querySelectorAll('#nav a')) if (a.offsetParent && /upload/.test(a.getAttribute('href'))) found.push('nav: Upload');
            return found;""")

    def collect_logs(self):
        try:
            for entry in self.driver.get_log("browser"):
                self.console_errors.append(entry.get("message", ""))
        except WebDriverException:
            pass


def make_tokens(root):
    tokens = {"editor": "livery_" + secrets.token_hex(16), "viewer": "livery_" + secrets.token_hex(16)}
    path = os.path.join(root, "tokens")
    with open(path, "w") as handle:
        handle.write("# console test tokens\n")
        handle.write("night-ops editor %s\n" % hashlib.sha256(tokens["editor"].encode()).hexdigest())
        handle.write("dashboard viewer %s\n" % hashlib.sha256(tokens["viewer"].encode()).hexdigest())
    return tokens, path


COLOR_CASES = [
    # every spelling of docs/SKINS.md's config.json section, then look-alikes that are not colours
    ("#D7000F", [215, 0, 15, 1]), ("FFD23F", [255, 210, 63, 1]), ("0xFFF5E1", [255, 245, 225, 1]),
    ("0XfFf5e1", [255, 245, 225, 1]), ("#165B33FF", [22, 91, 51, 1]), ("#16 5B33", None),
    ("fff", [255, 255, 255, 1]), ("#333", [51, 51, 51, 1]), ("F8F8F8 0.8", [248, 248, 248, 0.8]),
    ("#F8F8F8 0.5", [248, 248, 248, 0.5]), ("0xF8F8F8 1", [248, 248, 248, 1]),
    ("rgba<254,220,189,0.9>", [254, 220, 189, 0.9]), ("rgba<22,91,51>", [22, 91, 51, 1]),
    ("hex<B2D235 0.9>", [178, 210, 53, 0.9]), ("hex<B2D235>", [178, 210, 53, 1]), ("hex<8c1c13 0.9>", [140, 28, 19, 0.9]),
    ("#GG0000", None), ("rgba<256,0,0>", None), ("rgba< 1,2,3>", None), ("rgba<1,2,3,1.5>", None), ("FFFFFF  0.9", None),
    ("FFFFFF 2", None), ("hex<FFF>", None), ("#FFFF", None), ("FFFFFFFF", None), ("", None), ("red", None),
    ("hex<B2D235 0.9", None), ("0x123", None),
]


def upload(server, token, data):
    """Uploads a zip's bytes through the admin API (not the browser); returns the status."""
    request = urllib.request.Request(server.base + "/admin/v1/skins", data=data, method="POST")
    request.add_header("Authorization", "Bearer " + token)
    request.add_header("Content-Type", "application/zip")
    try:
        with urllib.request.urlopen(request, timeout=WAIT) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def occurrence_rows(driver):
    """The Skin screen's occurrences: [year, source, the row's text] per row."""
    return driver.execute_script("""
        return Array.from(document.querySelectorAll("#main > .screen:not([data-stale]) table[aria-label=Occurrences] tbody tr"))
          .map(r => [r.dataset.year, r.dataset.source, r.textContent]);""")


def festival_flow(browser, server, editor, root):
    """Holidays that move (issue 27): Spring Festival picked from the list and released, each year's occurrence on
    the Skin screen, one year skipped, one overridden with its own dates and the override undone, and 422s shown
    at the field they name."""
    driver = browser.driver
    skin_id = "festival-flow"
    with open(skin_zip(os.path.join(root, "festival.zip"), "Festival Flow", skin_id=skin_id), "rb") as archive:
        check("a skin for the festival flow uploads", upload(server, editor, archive.read()) == 201)
    set_value = """const set = (el, v) => { el.value = v; el.dispatchEvent(new Event('input', {bubbles: true})); el.dispatchEvent(new Event('change', {bubbles: true})); };"""

    # --- Picking Spring Festival from the list, and releasing ------------------------------------------------
    browser.go(f"#/skins/{skin_id}/release", "form[aria-label='Release settings']")
    driver.find_element(By.CSS_SELECTOR, "label[for='window-mode-rule']").click()
    Select(browser.find("#recurs-festival")).select_by_value("spring-festival")
    shown = driver.execute_script("""return ['recurs-calendar', 'recurs-month', 'recurs-day', 'recurs-startOffsetDays', 'recurs-endOffsetDays',
        'recurs-startTime', 'recurs-endTime', 'recurs-ifMissing', 'release-timeZone'].map(id => document.getElementById(id).value)
        .concat([document.getElementById('recurs-leapMonth').checked, !!document.querySelector('#release-startsAt:not(:disabled)')]);""")
    shown[5:7] = [t + ":00" if len(t) == 5 else t for t in shown[5:7]]  # a time input may drop ":00" seconds
    check("picking Spring Festival fills in the rule: chinese 1-1, 7 days before to 15 after, in Asia/Shanghai, no dates",
          shown == ["chinese", "1", "1", "-7", "15", "00:00:00", "23:59:59", "refuse", "Asia/Shanghai", False, False], str(shown))
    check("release controls have labels with a rule", not browser.unlabelled_controls(), str(browser.unlabelled_controls()))
    browser.shot("05e-release-festival", "form[aria-label='Release settings']")
    browser.button("Review release").send_keys(Keys.ENTER)
    browser.confirm("Spring Festival")
    browser.find(".summary")
    status, _, skin = call(server, "GET", f"/admin/v1/skins/{skin_id}", editor)
    release = (skin or {}).get("release") or {}
    check("releasing Spring Festival from the console stores the rule in Asia/Shanghai and no dates",
          dict(RULE_DEFAULTS, **(release.get("recurs") or {})) == dict(RULE_DEFAULTS, calendar="chinese", month=1, day=1, startOffsetDays=-7, endOffsetDays=15)
          and release.get("timeZone") == "Asia/Shanghai" and "startsAt" not in release and "endsAt" not in release, json.dumps(release))

    # --- Each year's occurrence, as the server computes it -----------------------------------------------------
    browser.go(f"#/skins/{skin_id}", "table[aria-label=Occurrences] tbody tr")
    rows = occurrence_rows(driver)
    listed = [int(o["year"]) for o in release.get("nextOccurrences", [])]
    check("the Skin screen lists each of the next years the API lists, each by the rule",
          [int(r[0]) for r in rows] == listed and len(rows) == 5 and all(r[1] == "rule" for r in rows), str(rows))
    wrong = []
    for year, text in ((int(r[0]), r[2]) for r in rows):
        if year in SPRING_FESTIVAL:
            first = datetime.date.fromisoformat(SPRING_FESTIVAL[year]) - datetime.timedelta(days=7)
            expected = f"{first.day} {first.strftime('%b')} {year}, 00:00"
            if expected not in text:
                wrong.append(f"{year}: {expected!r} not in {text!r}")
    check("each year starts 7 days before that year's Spring Festival (2027-02-06 → 30 Jan, 2028-01-26 → 19 Jan)", not wrong, "; ".join(wrong))
    first_year, second_year = rows[0][0], rows[1][0]  # 2027 and 2028 in 2026

    # --- Skipping a year -----------------------------------------------------------------------------------------
    browser.button("Skip", within=f"tr[data-year='{second_year}']").send_keys(Keys.ENTER)
    browser.confirm(second_year)
    browser.find(f"#main > .screen:not([data-stale]) tr[data-year='{second_year}'][data-source=skip]")
    row = next(r for r in occurrence_rows(driver) if r[0] == second_year)
    status, _, skin = call(server, "GET", f"/admin/v1/skins/{skin_id}", editor)
    check(f"skipping {second_year} stores it as skipped and the Skin screen marks it skipped",
          "skipped" in row[2] and skin["release"].get("occurrences") == {second_year: "skip"}, f"{row} {json.dumps(skin['release'].get('occurrences'))}")

    # --- Overriding a year with exact dates --------------------------------------------------------------------
    browser.button("Override…", within=f"tr[data-year='{first_year}']").send_keys(Keys.ENTER)
    browser.find(f"form[aria-label='Override {first_year}']")
    check("override controls have labels", not browser.unlabelled_controls(), str(browser.unlabelled_controls()))
    starts, ends = f"{first_year}-01-28T09:00:00", f"{first_year}-02-14T00:00:00"
    driver.execute_script(set_value + "set(document.getElementById('occurrence-startsAt'), arguments[0]); set(document.getElementById('occurrence-endsAt'), arguments[1]);", starts, ends)
    browser.button("Review override").send_keys(Keys.ENTER)
    browser.confirm(first_year)
    browser.find(f"#main > .screen:not([data-stale]) tr[data-year='{first_year}'][data-source=override]")
    row = next(r for r in occurrence_rows(driver) if r[0] == first_year)
    status, _, skin = call(server, "GET", f"/admin/v1/skins/{skin_id}", editor)
    check(f"overriding {first_year} with exact dates stores them (local time in Asia/Shanghai) and the Skin screen shows them",
          f"28 Jan {first_year}, 09:00" in row[2] and f"14 Feb {first_year}, 00:00" in row[2]
          and skin["release"].get("occurrences") == {first_year: {"startsAt": starts, "endsAt": ends}, second_year: "skip"},
          f"{row} {json.dumps(skin['release'].get('occurrences'))}")
    browser.shot("03b-occurrences", "#main > .screen:not([data-stale]) .occurrences")

    # --- An override that ends before it starts: the 422 at the field it names ----------------------------------
    browser.button("Change dates…", within=f"tr[data-year='{first_year}']").send_keys(Keys.ENTER)
    browser.find(f"form[aria-label='Override {first_year}']")
    driver.execute_script(set_value + "set(document.getElementById('occurrence-endsAt'), arguments[0]);", f"{first_year}-01-20T00:00:00")
    browser.button("Review override").send_keys(Keys.ENTER)
    browser.confirm(first_year)
    browser.find("#occurrence-endsAt[aria-invalid=true]")
    note = driver.execute_script("return document.getElementById('occurrence-endsAt').closest('.field').querySelector('.field-error')?.textContent || ''")
    check("an override ending before it starts shows the 422's reason next to Ends at", "not after" in note, note)

    # --- Undoing the override ------------------------------------------------------------------------------------
    browser.go(f"#/skins/{skin_id}", "table[aria-label=Occurrences] tbody tr")
    browser.button("Undo override", within=f"tr[data-year='{first_year}']").send_keys(Keys.ENTER)
    browser.confirm(first_year)
    browser.find(f"#main > .screen:not([data-stale]) tr[data-year='{first_year}'][data-source=rule]")
    status, _, skin = call(server, "GET", f"/admin/v1/skins/{skin_id}", editor)
    check(f"undoing the {first_year} override follows the rule again and keeps the skip",
          skin["release"].get("occurrences") == {second_year: "skip"}, json.dumps(skin["release"].get("occurrences")))

    # --- A skip over someone else's change: 412, nothing written, what changed shown ---------------------------------
    browser.go(f"#/skins/{skin_id}", "table[aria-label=Occurrences] tbody tr")
    status, _, _ = call(server, "PATCH", f"/admin/v1/skins/{skin_id}/release", editor, {"priority": 7})
    third_year = rows[2][0]
    browser.button("Skip", within=f"tr[data-year='{third_year}']").send_keys(Keys.ENTER)
    browser.confirm(third_year)
    browser.text_in(".conflict", "412")
    conflict = driver.find_element(By.CSS_SELECTOR, ".conflict").text
    status, _, skin = call(server, "GET", f"/admin/v1/skins/{skin_id}", editor)
    check("skipping a year sends If-Match: over someone else's change it gets 412, writes nothing and shows what changed",
          "priority" in conflict and third_year not in (skin["release"].get("occurrences") or {}), conflict)

    # --- A rule the calendar cannot keep: the 422 names recurs/day, shown at the Day field ----------------------------
    browser.go(f"#/skins/{skin_id}/release", "form[aria-label='Release settings']")
    check("a recurring release opens in the release form as a rule, the festival recognised",
          driver.execute_script("return document.getElementById('window-mode-rule').checked && document.getElementById('recurs-festival').value") == "spring-festival")
    driver.execute_script(set_value + "set(document.getElementById('recurs-month'), '12'); set(document.getElementById('recurs-day'), '30');")
    check("a rule typed by hand is no festival", driver.find_element(By.ID, "recurs-festival").get_attribute("value") == "")
    browser.button("Review changes").send_keys(Keys.ENTER)
    browser.confirm("12-30")
    browser.find("#recurs-day[aria-invalid=true]")
    note = driver.execute_script("return document.getElementById('recurs-day').closest('.field').querySelector('.field-error')?.textContent || ''")
    box = driver.find_element(By.CSS_SELECTOR, "form[aria-label='Release settings'] .error").text
    check("Chinese 12-30 (missing in some years) gets a 422 naming recurs/day, shown next to Day with the years",
          "12-30" in note and "recurs/day" in box and driver.switch_to.active_element.get_attribute("id") == "recurs-day", f"{note!r} {box!r}")
    browser.shot("05f-release-422", "form[aria-label='Release settings'] fieldset.rule")
    status, _, skin = call(server, "GET", f"/admin/v1/skins/{skin_id}", editor)
    check("the refused rule wrote nothing", skin["release"]["recurs"]["month"] == 1, json.dumps(skin["release"]["recurs"]))


def post_reports(server, device, platform, app_version, reports):
    """What a phone sends to the real server's POST /api/v1/reports: (status, parsed JSON or None)."""
    at = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    body = {"app": "demo", "platform": platform, "appVersion": app_version, "deviceId": device,
            "reports": [dict(report, at=at) for report in reports]}
    request = urllib.request.Request(server.base + "/api/v1/reports", data=json.dumps(body).encode(), method="POST")
    request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=WAIT) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, None


def served_sign(server, skin_id, version, editor):
    """The skinSign the server serves for `skin_id` at `version` (iOS, @3x light), read from the app's catalog."""
    _, headers, skin = call(server, "GET", f"/admin/v1/skins/{skin_id}", editor)
    revision = int(headers.get("ETag", "0").strip('"'))
    if ((skin or {}).get("release") or {}).get("version") != version:
        raise AssertionError(f"{skin_id} v{version} is not released")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # a catalog built from the release's revision or a later one
        with urllib.request.urlopen(server.base + "/api/v1/catalog?app=demo&platform=ios", timeout=WAIT) as response:
            catalog = json.loads(response.read())
        entry = next((e for e in catalog.get("skins", []) if e.get("skinId") == skin_id), None)
        if entry and catalog.get("revision", -1) >= revision:
            return entry["packages"]["@3x-light"]["skinSign"]
        time.sleep(0.2)
    raise AssertionError(f"the catalog never listed {skin_id} v{version}")


def wait_for(what, condition, timeout=60):
    """Polls `condition` (bounded); returns its last value."""
    deadline = time.monotonic() + timeout
    value = condition()
    while not value and time.monotonic() < deadline:
        time.sleep(0.2)
        value = condition()
    if not value:
        raise AssertionError(f"timed out after {timeout}s waiting for {what}")
    return value


def health_rows(driver):
    """The Health card's version table: {version: {field: text}}."""
    return driver.execute_script("""
        const rows = {};
        for (const r of document.querySelectorAll("#main > .screen:not([data-stale]) table[aria-label='Health by version'] tbody tr")) {
          rows[r.dataset.version] = {};
          for (const c of r.querySelectorAll('[data-field]')) rows[r.dataset.version][c.dataset.field] = c.textContent;
        }
        return rows;""")


def health_flow(browser, server, editor, root):
    """Issue 26 on the Skin screen: each version's health from the reports phones post to the real server (devices
    applied and failed, the failure rate, failures by stage and platform, the adoption curve as SVG with a table), the
    guard edited in the release form, and a guard's trip: the paused banner, a 412 on resume, and resuming."""
    driver = browser.driver
    skin_id = "health-flow"
    for title, color in (("Health Flow v1", "#FFF5E1"), ("Health Flow v2", "#FFE8C2")):  # two packages, two signs
        with open(skin_zip(os.path.join(root, "health.zip"), title, skin_id=skin_id, tab_color=color), "rb") as archive:
            check(f"{title} uploads", upload(server, editor, archive.read()) == 201)

    # --- No reports yet: the empty state ------------------------------------------------------------------------
    browser.go(f"#/skins/{skin_id}", ".health .health-empty")
    check("a skin no phone reported on shows the empty state", "No reports yet" in driver.find_element(By.CSS_SELECTOR, ".health").text)

    # --- v1 released, four phones apply it ------------------------------------------------------------------------
    now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    window = {"startsAt": (now - datetime.timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ"), "endsAt": (now + datetime.timedelta(days=7)).strftime("%Y-%m-%dT%H:%M:%SZ")}
    status, _, body = call(server, "PUT", f"/admin/v1/skins/{skin_id}/release", editor, dict(window, version=1, priority=90, rollout=100))
    check("v1 is released at 100 %", status == 200, json.dumps(body))
    sign1 = served_sign(server, skin_id, 1, editor)
    answers = [post_reports(server, f"phone-v1-{n}", "ios", "7.2.0", [{"skinSign": sign1, "outcome": "applied"}]) for n in range(4)]
    check("four phones' reports of v1 are accepted (202)", all(a == (202, {"accepted": 1, "ignored": 0}) for a in answers), str(answers))

    # --- v2 released from the console with its own guard ---------------------------------------------------------
    browser.go(f"#/skins/{skin_id}/release", "form[aria-label='Release settings']")
    shown = driver.execute_script("return ['guard-action', 'guard-maxFailureRate', 'guard-minDevices', 'guard-windowMinutes'].map(id => document.getElementById(id).value)")
    check("the release form shows the guard in force (the standard one: pause above 5 % of 50 devices in 60 min)", shown == ["pause", "5", "50", "60"], str(shown))
    Select(browser.find("#release-version")).select_by_value("2")
    driver.execute_script("""const set = (el, v) => { el.value = v; el.dispatchEvent(new Event('input', {bubbles: true})); el.dispatchEvent(new Event('change', {bubbles: true})); };
        set(document.getElementById('guard-maxFailureRate'), '20'); set(document.getElementById('guard-minDevices'), '10');""")
    check("release controls have labels with the guard", not browser.unlabelled_controls(), str(browser.unlabelled_controls()))
    browser.shot("05g-release-guard", "form[aria-label='Release settings'] fieldset.guard")
    browser.button("Review changes").send_keys(Keys.ENTER)
    dialog = browser.find("dialog[open]").text
    check("the confirmation names the guard's change", "guard" in dialog and "20 %" in dialog and "10" in dialog, dialog)
    browser.confirm()
    browser.find("#main > .screen:not([data-stale]) .summary")
    status, _, skin = call(server, "GET", f"/admin/v1/skins/{skin_id}", editor)
    release = skin.get("release") or {}
    check("the console's release stores release.guard (20 %, 10 devices, 60 min, pause) with v2",
          release.get("version") == 2 and release.get("guard") == {"maxFailureRate": 0.2, "minDevices": 10, "windowMinutes": 60, "action": "pause"}, json.dumps(release))

    # --- Phones report v2: 9 applied, 3 failed (unpack ×2, crash), on two platforms --------------------------------
    sign2 = served_sign(server, skin_id, 2, editor)
    phones = [(f"phone-ios-{n}", "ios", "7.2.0", None) for n in range(6)] + [(f"phone-droid-{n}", "android", "7.1.0", None) for n in range(3)]
    phones += [("phone-ios-6", "ios", "7.2.0", "unpack"), ("phone-droid-3", "android", "7.1.0", "unpack"), ("phone-droid-4", "android", "7.1.0", "crash")]
    answers = []
    for device, platform, app_version, stage in phones:
        report = {"skinSign": sign2, "outcome": "failed", "stage": stage} if stage else {"skinSign": sign2, "outcome": "applied"}
        answers.append(post_reports(server, device, platform, app_version, [report]))
    check("twelve phones' reports of v2 are accepted (202)", all(a == (202, {"accepted": 1, "ignored": 0}) for a in answers), str(answers))

    # --- The health panel ----------------------------------------------------------------------------------------
    browser.go(f"#/skins/{skin_id}", ".health table[aria-label='Health by version'] tbody tr")
    rows = health_rows(driver)
    check("the health panel lists v2 with 9 devices applied, 3 failed, a 25 % failure rate, unpack 2 and crash 1",
          rows.get("2") == {"applied": "9", "failed": "3", "rate": "25 %", "stages": "unpack 2 · crash 1"}, json.dumps(rows))
    check("and v1 with 4 applied, none failed", rows.get("1") == {"applied": "4", "failed": "0", "rate": "0 %", "stages": "—"}, json.dumps(rows))
    platforms = driver.execute_script("""
        return Array.from(document.querySelectorAll("#main > .screen:not([data-stale]) table[aria-label='v2 by platform'] tbody tr"))
          .map(r => Array.from(r.children).map(c => c.textContent));""")
    check("v2 by platform and app version: android 3 applied, 2 failed (40 %); iOS 6 applied, 1 failed (14.3 %)",
          platforms == [["android", "3", "2", "40 %", "unpack 1 · crash 1"], ["app 7.1.0", "3", "2", "40 %", "unpack 1 · crash 1"],
                        ["ios", "6", "1", "14.3 %", "unpack 1"], ["app 7.2.0", "6", "1", "14.3 %", "unpack 1"]], json.dumps(platforms))
    chart = driver.execute_script("""
        const figure = document.querySelector("#main > .screen:not([data-stale]) .version-health[data-version='2'] figure.adoption");
        const svg = figure.querySelector('svg');
        const hours = Array.from(figure.querySelectorAll("table[aria-label='v2 hour by hour'] tbody tr")).map(r => Array.from(r.children).map(c => c.textContent));
        return {role: svg.getAttribute('role'), name: svg.getAttribute('aria-labelledby').split(' ').map(id => document.getElementById(id).textContent).join(' '),
                line: !!svg.querySelector('path.line-applied'), hours: hours};""")
    check("the adoption curve is inline SVG named for screen readers (role img, a title and a description)",
          chart["role"] == "img" and "Adoption of v2" in chart["name"] and "9 devices applied" in chart["name"] and chart["line"], json.dumps(chart))
    check("its hour-by-hour table adds up to the figures (9 applied, 3 failed)",
          chart["hours"] and sum(int(r[1]) for r in chart["hours"]) == 9 and sum(int(r[2]) for r in chart["hours"]) == 3 and chart["hours"][-1][3] == "9", json.dumps(chart["hours"]))
    guard_line = driver.find_element(By.CSS_SELECTOR, ".health .guard-line").text
    check("the health panel states the guard in force", "20 %" in guard_line and "60 minutes" in guard_line and "10 devices" in guard_line, guard_line)
    # An element's screenshot shows only what the window shows: the card scrolled to the top, below the sticky bar.
    driver.execute_script("document.querySelector('#main > .screen:not([data-stale]) .health').scrollIntoView(); window.scrollBy(0, -72)")
    browser.shot("07-health", "#main > .screen:not([data-stale]) .health")

    # 3 failed of 12 reporting devices is 25 %, above the guard's 20 % once 10 devices reported: the guard trips.
    def paused_release():
        release = call(server, "GET", f"/admin/v1/skins/{skin_id}", editor)[2].get("release") or {}
        return release if release.get("paused") else None
    try:
        release = wait_for("the guard to pause v2", paused_release)
    except AssertionError as error:  # the rest of the flow needs the pause; the other screens' checks still run
        check("the guard paused v2 after the twelfth phone's report (ingestion calls the guard)", False, str(error))
        return False
    paused = release["paused"]
    check("the guard paused v2 with the figures that tripped it and the rollout before",
          paused.get("action") == "pause" and paused.get("rollout") == 100 and paused.get("figures", {}).get("reportingDevices") == 12
          and paused.get("figures", {}).get("failedDevices") == 3, json.dumps(paused))

    # --- The paused banner ---------------------------------------------------------------------------------------
    browser.go(f"#/skins/{skin_id}", ".paused-banner")
    banner = browser.find("#main > .screen:not([data-stale]) .paused-banner").text
    check("the Skin screen shows the pause: the figures that tripped it, the action and the rollout before",
          "Paused by its guard" in banner and "3 of 12 reporting devices failed (25 %)" in banner and "rollout 0" in banner and "100 %" in banner
          and "unpack 2 · crash 1" in banner, banner)
    driver.execute_script("window.scrollTo(0, 0)")
    browser.shot("07b-paused", "#main > .screen:not([data-stale]) .paused-banner")
    browser.go("#/skins", "table[aria-label=Skins]")
    row = driver.execute_script("return document.querySelector(\"#main > .screen:not([data-stale]) tr[data-skin='\" + arguments[0] + \"'] .status\").textContent", skin_id)
    check("the Skins screen marks the release paused", row == "paused", row)

    # --- Resume over someone else's change: 412, nothing written, what changed shown --------------------------------
    browser.go(f"#/skins/{skin_id}", ".paused-banner")
    status, _, _ = call(server, "PATCH", f"/admin/v1/skins/{skin_id}/release", editor, {"priority": 91})
    browser.button("Resume").send_keys(Keys.ENTER)
    browser.confirm("paused")
    browser.text_in(".conflict", "412")
    conflict = driver.find_element(By.CSS_SELECTOR, ".conflict").text
    _, _, skin = call(server, "GET", f"/admin/v1/skins/{skin_id}", editor)
    check("resuming sends If-Match: over someone else's change it gets 412, the release stays paused, and the console shows what changed",
          "priority" in conflict and (skin["release"].get("paused") or {}).get("action") == "pause", conflict)

    # --- Resume ----------------------------------------------------------------------------------------------------
    browser.go(f"#/skins/{skin_id}", ".paused-banner")
    browser.button("Resume").send_keys(Keys.ENTER)
    browser.confirm("100 %")
    browser.wait(lambda d: d.find_elements(By.CSS_SELECTOR, "#main > .screen:not([data-stale]) .health") and not d.find_elements(By.CSS_SELECTOR, ".paused-banner"), "the banner to go")
    _, _, skin = call(server, "GET", f"/admin/v1/skins/{skin_id}", editor)
    check("Resume sends PATCH {\"paused\": null}: the release serves its rollout from before (100 %) again",
          skin["release"].get("paused") is None and skin["release"].get("rollout") == 100 and skin["release"].get("priority") == 91, json.dumps(skin["release"]))
    _, _, audit = call(server, "GET", "/admin/v1/audit?limit=1000", editor)
    actions = [(e["actor"], e["action"]) for e in audit["entries"] if e.get("skinId") == skin_id]
    check("the audit log has the guard's trip by livery:guard and the console's resume",
          ("livery:guard", "release.guard") in actions and ("night-ops", "release.resume") in actions, str(actions))
    browser.go(f"#/audit?skin={skin_id}&limit=500", "table[aria-label='Audit entries'] tbody tr[data-action='release.guard']")
    trip = driver.find_element(By.CSS_SELECTOR, "table[aria-label='Audit entries'] tbody tr[data-action='release.guard']").text
    check("the audit screen shows the guard's trip by livery:guard with its figures", "livery:guard" in trip and "paused by its guard: 3 of 12 devices failed" in trip, trip)

    # One more failing phone within the window trips it again: the viewer finds it paused.
    check("one more failing phone's report is accepted",
          post_reports(server, "phone-ios-7", "ios", "7.2.0", [{"skinSign": sign2, "outcome": "failed", "stage": "config"}])[0] == 202)
    wait_for("the guard to pause v2 again", paused_release)
    return True


def run(args, root, shots):
    tokens, tokens_file = make_tokens(root)
    server = Server(args.binary, root, tokens_file)
    browser = None
    try:
        editor, viewer = tokens["editor"], tokens["viewer"]
        # --- Served by Livery: headers, whoami --------------------------------------------------------------
        with urllib.request.urlopen(server.base + "/admin/", timeout=WAIT) as response:
            csp = response.headers.get("Content-Security-Policy", "")
            check("/admin/ is served with a strict CSP (no inline scripts or styles)",
                  "script-src 'self'" in csp and "style-src 'self'" in csp and "unsafe-inline" not in csp and "default-src 'none'" in csp, csp)
            check("/admin/ is HTML", response.headers.get("Content-Type", "").startswith("text/html"))
        status, _, body = call(server, "GET", "/admin/v1/whoami", viewer)
        check("whoami answers the token's name and role", status == 200 and body == {"name": "dashboard", "role": "viewer"}, str(body))

        browser = Console(server, shots)
        driver = browser.driver

        # --- A wrong token is refused -----------------------------------------------------------------------
        browser.sign_in("livery_" + secrets.token_hex(16))
        browser.text_in(".signin [role=alert]", "refused")
        check("a wrong token is refused at sign-in", "#/skins" not in driver.current_url and driver.execute_script("return sessionStorage.length") == 0)
        check("sign-in controls have labels", not browser.unlabelled_controls(), str(browser.unlabelled_controls()))
        browser.shot("01-sign-in-refused")

        # --- Sign in as the editor (keyboard: type the token, Enter) ------------------------------------------
        browser.sign_in(editor)
        browser.find("table[aria-label=Skins] tbody tr")
        check("after sign-in the console opens on the Skins screen", driver.current_url.endswith("#/skins"))
        browser.text_in("#who", "night-ops")
        browser.settle()
        browser.shot("02-skins")
        rows = driver.find_elements(By.CSS_SELECTOR, "table[aria-label=Skins] tbody tr")
        check("the Skins screen lists the imported samples with status and thumbnails",
              len(rows) == 3 and all(r.find_elements(By.CSS_SELECTOR, ".status") for r in rows)
              and len(driver.find_elements(By.CSS_SELECTOR, ".thumb-box img[src^='blob:']")) == 3, f"{len(rows)} rows")

        unreadable = driver.execute_script("""
            return Array.from(document.querySelectorAll('.status')).filter(e => {
              const s = getComputedStyle(e); return !e.textContent.trim() || s.color === s.backgroundColor; }).map(e => e.outerHTML);""")
        check("status badges are readable (text, and a colour unlike their background)", not unreadable, str(unreadable))

        # --- The colour parser, evaluated in the page ---------------------------------------------------------
        wrong = []
        for text, expected in COLOR_CASES:
            got = driver.execute_script("const c = LiveryColor.parse(arguments[0]); return c ? [c.r, c.g, c.b, c.a] : null", text)
            if expected is None and got is not None or expected is not None and (got is None or got[:3] != expected[:3] or abs(got[3] - expected[3]) > 1e-9):
                wrong.append(f"{text!r}: {got} != {expected}")
        check("the console's colour parser reads every documented spelling and refuses look-alikes", not wrong, "; ".join(wrong))

        # --- Upload (v1, v2 and an invalid skin) through the file chooser --------------------------------------
        browser.go("#/upload", ".dropzone")
        check("upload controls have labels", not browser.unlabelled_controls(), str(browser.unlabelled_controls()))
        bad = skin_zip(os.path.join(root, "bad.zip"), "Broken colours", bad_color=True)
        driver.find_element(By.ID, "upload-file").send_keys(bad)
        browser.text_in(".bad-card", "not valid")
        report = driver.find_element(By.CSS_SELECTOR, ".bad-card table").text
        check("an invalid upload shows the report with file, JSON pointer and fix",
              "color.invalid" in report and "config.json" in report and "/home_tabbar/colors/color_background" in report and "Write it as" in report, report[:300])
        browser.shot("10-upload-report")
        for number, title in ((1, "Console Flow v1"), (2, "Console Flow v2")):
            path = skin_zip(os.path.join(root, f"v{number}.zip"), title)
            driver.find_element(By.ID, "upload-file").send_keys(path)
            browser.text_in(".ok-card h2", f"Stored {SKIN_ID} v{number}")
        status, _, skin = call(server, "GET", f"/admin/v1/skins/{SKIN_ID}", editor)
        check("the browser's uploads are stored as v1 and v2", status == 200 and [v["version"] for v in skin["versions"]] == [1, 2])
        browser.shot("09-upload")

        # --- Skin screen ------------------------------------------------------------------------------------
        browser.go(f"#/skins/{SKIN_ID}", ".tree")
        browser.settle()
        swatches = driver.find_elements(By.CSS_SELECTOR, ".tree .swatch .swatch-fill")
        thumbs = driver.find_elements(By.CSS_SELECTOR, ".tree img.tree-thumb[src^='blob:']")
        file_thumbs = driver.find_elements(By.CSS_SELECTOR, ".files img[src^='blob:']")
        check("the Skin screen draws each colour as a swatch and each image as a thumbnail",
              len(swatches) >= 8 and len(thumbs) >= 5 and len(file_thumbs) >= 12, f"{len(swatches)} swatches, {len(thumbs)} thumbs, {len(file_thumbs)} files")
        check("skin controls have labels", not browser.unlabelled_controls(), str(browser.unlabelled_controls()))
        check("the Skin screen lists validation warnings", driver.find_element(By.ID, "warn-title").is_displayed())
        # Keyboard: the appearance radio group switches with arrow keys.
        driver.find_element(By.ID, "appearance-light").send_keys(Keys.ARROW_RIGHT)
        browser.text_in("#config-title", "dark")
        browser.settle()
        check("light/dark switches from the keyboard", driver.find_element(By.ID, "appearance-dark").is_selected())
        driver.find_element(By.ID, "scale-2").send_keys(Keys.ARROW_RIGHT)
        browser.text_in("#config-title", "@3x")
        browser.settle()
        check("@3x images are shown after switching scale",
              any("@3x" in e.get_attribute("data-path") for e in driver.find_elements(By.CSS_SELECTOR, ".tree img.tree-thumb")))
        browser.shot("03-skin")

        # --- Phone preview ----------------------------------------------------------------------------------
        browser.go(f"#/skins/{SKIN_ID}/phone", ".phone .tab-bar")
        browser.settle()
        phones = driver.find_elements(By.CSS_SELECTOR, ".phone")
        nav_color = driver.execute_script("return getComputedStyle(document.querySelector('.phone .phone-top')).backgroundColor")
        check("the phone preview draws navigation bar, banner, tab bar and loading animation",
              len(phones) == 2 and nav_color == "rgb(215, 0, 15)" and driver.find_elements(By.CSS_SELECTOR, ".phone .banner-img[src^='blob:']")
              and len(driver.find_elements(By.CSS_SELECTOR, ".phone:not(.dark) .tab-icon[src^='blob:']")) == 2
              and driver.find_elements(By.CSS_SELECTOR, ".phone .loading-anim[src^='blob:']"), nav_color)
        browser.shot("04-phone-preview")
        browser.go("#/skins/christmas-2026/phone", ".phone.dark .tab-bar")
        dark_nav = driver.execute_script("return getComputedStyle(document.querySelector('.phone.dark .phone-top')).backgroundColor")
        check("the dark phone applies the skin's dark overrides", dark_nav == "rgb(11, 46, 26)", dark_nav)
        browser.shot("04b-phone-preview-dark")
        browser.go("#/skins/double-11-2026/phone", ".phone .tab-bar")
        dotted = driver.execute_script("""
            const nav = getComputedStyle(document.querySelector('.phone .phone-top')).backgroundColor;
            return [nav, document.querySelectorAll('.phone:not(.dark) .tab-icon[src^="blob:"]').length,
                    Array.from(document.querySelectorAll('.phone:not(.dark) .tab-title')).map(e => e.textContent)];""")
        check("the phone preview reads dotted identifiers (one module, fallback chain)",
              dotted[0] == "rgb(255, 247, 242)" and dotted[1] == 2 and dotted[2] == ["Home", "Coupon"], str(dotted))
        browser.shot("04c-phone-preview-dotted")

        # --- Release v2 at 5 % ------------------------------------------------------------------------------
        browser.go(f"#/skins/{SKIN_ID}/release", "form[aria-label='Release settings']")
        check("release controls have labels", not browser.unlabelled_controls(), str(browser.unlabelled_controls()))
        # A window around now in Asia/Shanghai, so the skin is live.
        driver.execute_script("""
            const set = (el, v) => { el.value = v; el.dispatchEvent(new Event('input', {bubbles: true})); el.dispatchEvent(new Event('change', {bubbles: true})); };
            const fmt = d => new Intl.DateTimeFormat('sv-SE', {timeZone: 'Asia/Shanghai', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23'}).format(d).replace(' ', 'T');
            const inputs = document.querySelectorAll('input[type=datetime-local]');
            set(document.querySelector('input[list=zones]'), 'Asia/Shanghai');
            set(inputs[0], fmt(new Date(Date.now() - 86400e3)));
            set(inputs[1], fmt(new Date(Date.now() + 20 * 86400e3)));""")
        priority = driver.find_element(By.ID, "release-priority")
        priority.clear()
        priority.send_keys("20")
        check("a new release starts at 5 %", driver.find_element(By.ID, "rollout").get_attribute("value") == "5")
        browser.shot("05-release")
        priority.send_keys(Keys.ENTER)  # Enter in a field submits the form: the review dialog
        browser.confirm("rollout")
        browser.find(".summary")
        status, _, skin = call(server, "GET", f"/admin/v1/skins/{SKIN_ID}", editor)
        check("releasing from the console released v2 at 5 %", (skin.get("release") or {}).get("rollout") == 5 and skin["release"]["version"] == 2, json.dumps(skin.get("release")))

        # --- Raise to 50 % with the keyboard ----------------------------------------------------------------
        browser.go(f"#/skins/{SKIN_ID}/release", "#rollout")
        slider = driver.find_element(By.ID, "rollout")
        slider.send_keys(*([Keys.ARROW_RIGHT] * 45))
        check("the rollout slider moves with the keyboard", slider.get_attribute("value") == "50", slider.get_attribute("value"))
        browser.button("Review changes").send_keys(Keys.ENTER)
        browser.confirm("50")
        browser.find(".summary")
        status, _, skin = call(server, "GET", f"/admin/v1/skins/{SKIN_ID}", editor)
        check("raising the rollout from the console made it 50 %", skin["release"]["rollout"] == 50, json.dumps(skin.get("release")))

        # --- Lowering asks first; cancelling keeps the value -------------------------------------------------
        browser.go(f"#/skins/{SKIN_ID}/release", "#rollout")
        slider = driver.find_element(By.ID, "rollout")
        slider.send_keys(Keys.ARROW_LEFT)
        browser.text_in("dialog[open]", "Lower the rollout")
        browser.shot("05b-release-lowering")
        driver.switch_to.active_element.send_keys(Keys.ESCAPE)  # Escape cancels
        browser.wait(lambda d: not d.find_elements(By.CSS_SELECTOR, "dialog[open]"), "the dialog to close")
        check("lowering the rollout asks first, and Escape cancels and restores it", slider.get_attribute("value") == "50", slider.get_attribute("value"))

        # --- A 412 shows what changed ------------------------------------------------------------------------
        browser.go(f"#/skins/{SKIN_ID}/release", "#rollout")
        status, _, _ = call(server, "PATCH", f"/admin/v1/skins/{SKIN_ID}/release", editor, {"priority": 30})
        priority = driver.find_element(By.ID, "release-priority")
        priority.clear()
        priority.send_keys("25" + Keys.ENTER)
        browser.confirm()
        browser.text_in(".conflict", "412")
        conflict = driver.find_element(By.CSS_SELECTOR, ".conflict").text
        check("a write over someone else's change gets 412 and shows what changed", "priority" in conflict and "30" in conflict, conflict)
        browser.shot("05c-release-conflict")
        status, _, skin = call(server, "GET", f"/admin/v1/skins/{SKIN_ID}", editor)
        check("the 412 wrote nothing", skin["release"]["priority"] == 30)

        # --- An unchanged form is no change, even for a window written with an offset (shown in another zone) ----
        browser.go("#/skins/christmas-2026/release", "form[aria-label='Release settings']")
        browser.button("Review changes").send_keys(Keys.ENTER)
        browser.text_in(".form-status", "Nothing to change")
        check("reviewing an untouched release of an offset-written window finds nothing to change",
              not driver.find_elements(By.CSS_SELECTOR, "dialog[open]"))

        # --- Timeline ---------------------------------------------------------------------------------------
        browser.go("#/timeline", ".timeline .bar-item")
        check("the timeline shows every released skin per app with a now-line and priorities",
              driver.find_elements(By.CSS_SELECTOR, ".timeline .now-line") and any("P30" in e.text for e in driver.find_elements(By.CSS_SELECTOR, ".bar-item")))
        check("the timeline shows overlaps", driver.find_elements(By.CSS_SELECTOR, ".overlaps li"))
        browser.shot("06-timeline")

        # --- Kill switch on and off (keyboard: type the reason, Enter, Tab to Confirm, Enter) ---------------
        browser.go("#/killswitch", "[data-switch='*'] input")
        check("kill switch controls have labels", not browser.unlabelled_controls(), str(browser.unlabelled_controls()))
        driver.find_element(By.CSS_SELECTOR, "[data-switch='*'] input").send_keys("banner crashes 7.1 on Android" + Keys.ENTER)
        browser.confirm("every app")
        browser.find("[data-switch='*'].on")
        status, _, switches = call(server, "GET", "/admin/v1/killswitch", viewer)
        check("the global kill switch is on after the console turned it on", (switches.get("global") or {}).get("enabled") is True)
        status, _, poll = call(server, "GET", "/api/v1/skin?app=demo&platform=ios&appVersion=7.2.0", viewer)
        check("with the switch on, polls answer no skin", poll == {"skinSign": ""} or poll.get("skinSign") == "", json.dumps(poll))
        browser.go("#/skins", "table[aria-label=Skins]")
        check("the Skins screen shows killed skins", driver.find_elements(By.CSS_SELECTOR, ".status-killed"))
        browser.go("#/killswitch", "[data-switch='*'].on input")
        browser.shot("07-kill-switch")
        driver.find_element(By.CSS_SELECTOR, "[data-switch='*'] input").send_keys("fixed in 7.1.1" + Keys.ENTER)
        browser.confirm("Turn off")
        browser.wait(lambda d: d.find_elements(By.CSS_SELECTOR, "[data-switch='*']:not(.on)"), "the switch to show off")
        status, _, switches = call(server, "GET", "/admin/v1/killswitch", viewer)
        check("the global kill switch is off after the console turned it off", (switches.get("global") or {}).get("enabled") is False)

        # --- Preview as a device ----------------------------------------------------------------------------
        # A theme of the app (listed) and one for Android only (excluded on iOS, with the rule).
        for theme_id, release in (("ink-theme", {"kind": "theme", "order": 1}), ("droid-theme", {"kind": "theme", "order": 2, "platforms": ["android"]})):
            archive = io.BytesIO()
            with zipfile.ZipFile(archive, "w") as theme_zip:
                theme_zip.writestr("skin.json", json.dumps({"id": theme_id, "title": theme_id, "app": "demo"}))
                theme_zip.writestr("config.json", json.dumps({"home": {"colors": {"color_background": "#FFFFFF"}}}))
            request = urllib.request.Request(server.base + "/admin/v1/skins", data=archive.getvalue(), method="POST")
            request.add_header("Authorization", "Bearer " + editor)
            request.add_header("Content-Type", "application/zip")
            with urllib.request.urlopen(request, timeout=WAIT) as response:
                check(f"the theme {theme_id} uploads", response.status == 201)
            status, _, _ = call(server, "PUT", f"/admin/v1/skins/{theme_id}/release", editor, release)
            check(f"the theme {theme_id} is released", status == 200)
        browser.go("#/device", "form[aria-label=Device]")
        check("device preview controls have labels", not browser.unlabelled_controls(), str(browser.unlabelled_controls()))
        device = driver.find_element(By.XPATH, "//label[text()='Device id']/following-sibling::input")
        device.send_keys("device-0001" + Keys.ENTER)
        browser.find("table[aria-label='Skins considered'] tbody tr")
        outcomes = [e.get_attribute("textContent") for e in driver.find_elements(By.CSS_SELECTOR, "table[aria-label='Skins considered'] .status")]
        check("the device preview lists each skin with its outcome and reason", len(outcomes) >= 2 and all(o in ("selected", "outranked", "excluded") for o in outcomes), str(outcomes))
        themes = [[c.get_attribute("textContent") for c in row.find_elements(By.CSS_SELECTOR, "td")]
                  for row in driver.find_elements(By.CSS_SELECTOR, "table[aria-label='Themes considered'] tbody tr")]
        check("the device preview lists the app's themes in order, listed or excluded with the rule",
              [(t[0], t[3], t[4]) for t in themes] == [("ink-theme", "listed", "matches every rule"), ("droid-theme", "excluded", "platform not targeted")], str(themes))
        browser.shot("08-device-preview")

        # --- Roll back --------------------------------------------------------------------------------------
        browser.go(f"#/skins/{SKIN_ID}", ".summary")
        browser.button("Roll back").send_keys(Keys.ENTER)
        browser.confirm("v1")
        browser.wait(lambda d: "v1" in d.find_element(By.CSS_SELECTOR, ".facts").text, "the skin to show v1 released")
        status, _, skin = call(server, "GET", f"/admin/v1/skins/{SKIN_ID}", editor)
        check("rolling back from the console released v1 with the same settings",
              skin["release"]["version"] == 1 and skin["release"]["rollout"] == 50 and skin["release"]["priority"] == 30, json.dumps(skin["release"]))

        # --- Every step in the audit screen -----------------------------------------------------------------
        browser.go("#/audit", "table[aria-label='Audit entries'] tbody tr")
        browser.shot("11-audit")
        skin_filter = driver.find_element(By.XPATH, "//label[text()='Skin']/following-sibling::input")
        skin_filter.send_keys(SKIN_ID + Keys.ENTER)
        # Non-empty: an empty table while the filtered page loads would pass `all` vacuously.
        browser.wait(lambda d: (lambda rows: rows and all(SKIN_ID in r.text for r in rows))(d.find_elements(By.CSS_SELECTOR, "table[aria-label='Audit entries'] tbody tr")), "the filtered audit")
        rows = [(r.get_attribute("data-action"), r.text) for r in driver.find_elements(By.CSS_SELECTOR, "table[aria-label='Audit entries'] tbody tr")]
        actions = [a for a, _ in rows]
        expected = ["version.add", "version.add", "release.set", "release.set", "release.set", "release.rollback"]
        check("the audit screen filtered by skin shows upload ×2, release, raise, the other operator's change, rollback",
              actions == expected and "night-ops" in rows[0][1], str(actions))
        browser.go("#/audit?action=killswitch", "table[aria-label='Audit entries'] tbody tr")
        browser.wait(lambda d: all("killswitch" in (r.get_attribute("data-action") or "") for r in d.find_elements(By.CSS_SELECTOR, "table[aria-label='Audit entries'] tbody tr")), "the killswitch filter")
        kills = [r.text for r in driver.find_elements(By.CSS_SELECTOR, "table[aria-label='Audit entries'] tbody tr")]
        check("the audit screen shows the kill switch turned on and off", len(kills) == 2 and "banner crashes" in kills[0] and "fixed in 7.1.1" in kills[1], str(kills))
        # Paging: two entries per page walks forward and back.
        browser.go("#/audit?limit=25", "table[aria-label='Audit entries']")
        limit = driver.find_element(By.XPATH, "//label[text()='Page size']/following-sibling::select")
        driver.execute_script("const s = arguments[0]; s.add(new Option('2', '2')); s.value = '2';", limit)
        driver.find_element(By.XPATH, "//label[text()='Page size']/following-sibling::select").send_keys(Keys.ENTER)
        browser.button("Apply filters").click()
        browser.wait(lambda d: len(d.find_elements(By.CSS_SELECTOR, "table[aria-label='Audit entries'] tbody tr")) == 2, "a page of two")
        first = driver.find_element(By.CSS_SELECTOR, "table[aria-label='Audit entries'] tbody tr td").text
        browser.button("Next page →").click()
        browser.wait(lambda d: d.find_element(By.CSS_SELECTOR, "table[aria-label='Audit entries'] tbody tr td").text != first, "the next page")
        browser.button("← Previous page").click()
        browser.wait(lambda d: d.find_element(By.CSS_SELECTOR, "table[aria-label='Audit entries'] tbody tr td").text == first, "the previous page")
        check("the audit screen pages forward and back", True)

        # --- Keyboard: the nav is reachable by Tab and opens screens with Enter -----------------------------
        driver.execute_script("document.activeElement.blur(); document.body.focus()")
        body = driver.find_element(By.TAG_NAME, "body")
        reached = None
        for _ in range(12):
            body = driver.switch_to.active_element
            body.send_keys(Keys.TAB)
            active = driver.switch_to.active_element
            if active.get_attribute("data-screen") == "timeline":
                reached = active
                break
        if reached is not None:
            reached.send_keys(Keys.ENTER)
            browser.find(".timeline")
        check("the navigation works from the keyboard (Tab to Timeline, Enter)", reached is not None and driver.current_url.endswith("#/timeline"))

        # --- Themes are first-class: released as a theme with an order and no window, listed with it ----------
        theme_id = "double-11-2026"
        browser.go(f"#/skins/{theme_id}/release", "form[aria-label='Release settings']")
        driver.execute_script("""
            const set = (el, v) => { el.value = v; el.dispatchEvent(new Event('input', {bubbles: true})); el.dispatchEvent(new Event('change', {bubbles: true})); };
            set(document.getElementById('release-kind'), 'theme');
            const windowed = document.getElementById('release-windowed');
            windowed.checked = false; windowed.dispatchEvent(new Event('change', {bubbles: true}));""")
        order = driver.find_element(By.ID, "release-order")
        order.clear()
        order.send_keys("3")
        check("release controls have labels with a theme's kind and order", not browser.unlabelled_controls(), str(browser.unlabelled_controls()))
        browser.shot("05d-release-theme")
        order.send_keys(Keys.ENTER)
        browser.confirm()
        browser.find(".summary")
        status, _, skin = call(server, "GET", f"/admin/v1/skins/{theme_id}", editor)
        release = skin.get("release") or {}
        check("releasing a theme from the console stores kind theme, its order and no window",
              release.get("kind") == "theme" and release.get("order") == 3 and "startsAt" not in release, json.dumps(release))
        browser.go(f"#/skins/{theme_id}/release", "form[aria-label='Release settings']")
        shown = driver.execute_script("return [document.getElementById('release-kind').value, document.getElementById('release-order').value, document.getElementById('release-windowed').checked]")
        check("a theme without a window opens in the release form with its kind and order", shown == ["theme", "3", False], str(shown))
        browser.go("#/skins", "table[aria-label=Skins]")
        row = driver.execute_script("return document.querySelector(\"#main > .screen:not([data-stale]) tr[data-skin='\" + arguments[0] + \"']\").textContent", theme_id)
        check("the Skins screen lists the theme with its order and as live, not unreleased",
              "theme · order 3" in row and "live" in row and "unreleased" not in row.lower(), row)
        festival_flow(browser, server, editor, root)
        paused = health_flow(browser, server, editor, root)
        browser.collect_logs()
        type_errors = [m for m in browser.console_errors if "TypeError" in m]
        check("no screen threw a TypeError", not type_errors, "; ".join(type_errors)[:500])

        # --- Sign out forgets the token ---------------------------------------------------------------------
        browser.button("Sign out").click()
        browser.find("input[type=password]")
        check("signing out forgets the token", driver.execute_script("return sessionStorage.getItem('livery.console.token')") is None)
        browser.collect_logs()

        # --- The viewer: read-only screens, no write controls -----------------------------------------------
        browser.sign_in(viewer)
        browser.find("table[aria-label=Skins] tbody tr")
        browser.text_in("#who", "VIEWER")
        screens = [("#/skins", "table[aria-label=Skins]"), (f"#/skins/{SKIN_ID}", ".tree"), (f"#/skins/{SKIN_ID}/phone", ".phone"),
                   (f"#/skins/{SKIN_ID}/release", "h1"), ("#/skins/spring-festival-2027", "table[aria-label=Occurrences] tbody tr"),
                   ("#/skins/health-flow", ".health"), ("#/timeline", ".timeline"), ("#/killswitch", "[data-switch='*']"),
                   ("#/device", "form[aria-label=Device]"), ("#/audit", "table[aria-label='Audit entries']"), ("#/upload", "h1")]
        leaks = {}
        for hash_path, ready in screens:
            browser.go(hash_path, ready)
            browser.check_contrast("viewer " + hash_path)
            found = browser.write_controls()
            if found:
                leaks[hash_path] = found
        check("a viewer token sees every screen with no write control", not leaks, json.dumps(leaks)[:500])
        if paused:
            browser.go("#/skins/health-flow", ".paused-banner")
            check("a viewer sees the paused release's banner, with no Resume",
                  "An editor resumes it" in driver.find_element(By.CSS_SELECTOR, ".paused-banner").text)
        browser.go("#/skins", "table[aria-label=Skins]")
        browser.shot("12-viewer-skins")
        browser.collect_logs()
        violations = [m for m in browser.console_errors if "Content Security Policy" in m or "Refused to" in m]
        check("the browser logged no Content-Security-Policy violation", not violations, "; ".join(violations)[:500])
        errors = [m for m in browser.console_errors if "SEVERE" in m.upper() and "401" not in m and "412" not in m and "422" not in m]
        check("the browser logged no other errors", not errors, "; ".join(errors)[:500])
        missing = [m for m in browser.console_errors if "404" in m]
        check("nothing the console loads is missing (it has an icon: no favicon 404)", not missing, "; ".join(missing)[:500])
        check("every text meets WCAG AA contrast (4.5:1) on every screen", not browser.contrast, json.dumps(browser.contrast)[:1500])
    finally:
        if browser is not None:
            browser.quit()
        server.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", default=os.path.join(REPO, ".build", "debug", "livery"))
    parser.add_argument("--docs", help="copy the screenshots docs/CONSOLE.md shows into this folder")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args()
    root = tempfile.mkdtemp(prefix="livery-console-")
    shots = os.path.join(root, "screenshots")
    os.makedirs(shots)
    started = time.monotonic()
    try:
        run(args, root, shots)
    except Exception as error:  # a step that could not run is a failure, with where it stopped
        check("the browser flow ran to its end", False, f"{error}\n" + traceback.format_exc(limit=4))
    print(f"screenshots: {shots}", flush=True)
    if args.docs:
        os.makedirs(args.docs, exist_ok=True)
        for name in DOC_SHOTS:
            if os.path.exists(os.path.join(shots, name + ".png")):
                shutil.copy(os.path.join(shots, name + ".png"), os.path.join(args.docs, name + ".png"))
    if failed and os.path.exists(os.path.join(root, "server.log")):
        print("server log (last 20 lines):")
        print("".join(open(os.path.join(root, "server.log")).readlines()[-20:]))
    if not args.keep and not failed:  # the screenshots stay; the store and tokens go
        shutil.rmtree(os.path.join(root, "data"), ignore_errors=True)
    print(f"({time.monotonic() - started:.1f} s)")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
