"""Checks the DocC site scripts/docs built, page by page, in headless Chromium driven by Playwright.

Every article and symbol page renders its title without a console error, links between pages lead
to pages that exist (within a catalog and from one module's catalog to another's), every module
given has its landing page in the site, and each landing page shows its first code sample, not cut
off at 1280 px.
Screenshots of the landing pages and the articles go to OUT/screenshots, every page's result to
OUT/report.txt. It runs the Chromium it is given (Debian's chromium) and never downloads a browser.

    python3 scripts/docs_check.py --site DIR --base PATH --origin URL --chromium BROWSER --out DIR
        [--only TEXT] [--workers N] MODULE...

Pages are dealt round to --workers browsers checking side by side (default: one more than the
machine's cores), each in a process of its own.
"""

import argparse
import concurrent.futures
import json
import os
import shutil
import sys
import urllib.parse

try:
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import sync_playwright
except ImportError:
    sys.exit("scripts/docs_check.py needs Playwright for Python: "
             "python3 -m pip install -r scripts/docs-requirements.txt")

WIDTH, HEIGHT = 1280, 900


def code_listings(node):
    """The code listings in a render node's content, in order, each as its list of lines."""
    if isinstance(node, dict):
        if node.get("type") == "codeListing":
            return [node.get("code", [])]
        node = list(node.values())
    if isinstance(node, list):
        return [listing for value in node for listing in code_listings(value)]
    return []


class Page:
    """A page of the site, from its render data."""

    def __init__(self, path, data, articles):
        metadata = data.get("metadata", {})
        self.path, self.title, self.kind = path, metadata.get("title", ""), data.get("kind", "")
        self.listings = code_listings(data.get("primaryContentSections", []))
        module_page = self.kind == "symbol" and metadata.get("symbolKind") == "module"
        package_page = self.kind == "article" and metadata.get("role") == "collection"
        self.landing = module_page or package_page
        # An article of a catalog, not a group of members docc makes ("Equatable Implementations").
        self.article = self.kind == "article" and not self.landing and path.lower() in articles
        self.group = self.kind == "article" and not self.landing and not self.article
        self.closely = self.landing or self.article  # measured, and shown in screenshots

    def label(self):
        return "landing" if self.landing else "article" if self.article else "group" if self.group else self.kind


def pages(site, base, modules):
    """Every page the site holds, found in its render data, so a new page is checked unasked."""
    prefix = f"/{base}" if base else ""
    articles = {
        f"{prefix}/documentation/{module}/{name[:-3]}".lower()
        for module in modules
        for name in os.listdir(f"Sources/{module}/{module}.docc")
        if name.endswith(".md") and name[:-3] != module
    }
    root = os.path.join(site, base, "data")
    found = []
    for folder, _, files in os.walk(root):
        for name in files:
            if name.endswith(".json"):
                path = os.path.join(folder, name)
                relative = os.path.relpath(path, root)[: -len(".json")]
                with open(path) as file:
                    found.append(Page(f"{prefix}/{relative}", json.load(file), articles))
    return sorted(found, key=lambda page: page.path)


# What the page shows, once DocC's app has put a title in it (null before). A code listing is cut
# off when a line of it ends past the right edge of the box it scrolls in.
PROBE = r"""() => {
  const title = document.querySelector('main h1');
  if (document.readyState !== 'complete' || !title || !title.textContent.trim()) return null;
  const listings = Array.from(document.querySelectorAll('main .code-listing pre'))
    .filter(pre => pre.textContent.trim());
  const cut = pre => {
    const right = (pre.closest('.container-general') || pre).getBoundingClientRect().right;
    const lines = Array.from(pre.querySelectorAll('.code-line'));
    const over = lines.filter(line => line.getBoundingClientRect().right > right + 1);
    return over.length ? over[0].textContent.trim() : null;
  };
  return {
    title: title.textContent.trim(),
    code: listings.map(pre => pre.textContent),
    cut: listings.map(cut).filter(line => line),
    links: Array.from(document.querySelectorAll('main a[href]')).map(a => a.getAttribute('href')),
    sidebar: document.querySelectorAll('.navigator-card-item').length,
    height: document.documentElement.scrollHeight,
  };
}"""

# Rendered: a title, as many code blocks with text as the page has listings (code is filled in
# last), and for a page looked at closely the sidebar (it changes the width of the content).
RENDERED = f"""want => {{
  const state = ({PROBE})();
  return state && state.code.length >= want.listings && (state.sidebar || !want.closely) ? state : null;
}}"""


def wait_for_render(browser_page, page):
    """What the page shows once DocC's app rendered it; what it showed after 20 s if it never did,
    None when it had no title by then."""
    try:
        want = {"listings": len(page.listings), "closely": page.closely}
        state = browser_page.wait_for_function(RENDERED, arg=want, timeout=20_000, polling=50).json_value()
    except PlaywrightError:
        state = browser_page.evaluate(PROBE)
    browser_page.wait_for_timeout(100)  # late console messages of the page's own scripts
    return state


def console_problem(message):
    """A console error or failed assertion, as a problem; None for any other message."""
    if message.type not in ("error", "assert"):
        return None
    url = message.location.get("url", "")
    # DocC's app asks every site for an optional theme file; a catalog without one (ours) answers
    # 404 there on any host, and the app goes on with its own theme.
    if url.endswith("/theme-settings.json"):
        return None
    failed_load = message.text.startswith("Failed to load resource")
    return f"console {message.type}: {message.text}" + (f" {url}" if failed_load and url else "")


def content_problems(page, state, url, origin, known):
    """A title other than the page's, links into the site that lead nowhere, code cut off, and on
    a landing page a first code sample that is not shown. Returns the problems and the notes (code
    cut off in an article: worth a look, no failure)."""
    problems, notes = [], []
    if state["title"] != page.title:
        problems.append(f"rendered the title {state['title']!r}, not {page.title!r}")
    host = urllib.parse.urlparse(origin).netloc
    for href in state["links"]:
        target = urllib.parse.urlparse(urllib.parse.urljoin(url, href))
        path = urllib.parse.unquote(target.path).lower().rstrip("/")
        if target.netloc == host and "/documentation" in path and path not in known:
            problems.append(f"links to {href}, which is no page of the site")
    first_line = next((line.strip() for line in (page.listings or [[]])[0] if line.strip()), None)
    if page.landing and first_line and not any(first_line in code for code in state["code"]):
        problems.append(f"does not show its first code sample ({first_line!r})")
    if page.closely and state["cut"]:
        cut = f"code cut off at the right edge of its box at {WIDTH} px: {state['cut'][0]!r}"
        if page.landing:
            problems.append(cut + " (wrap the sample's lines at about 75 columns)")
        else:
            notes.append(cut)
    return problems, notes


def screenshot(browser_page, state, name):
    """The page as a reader first sees it at 1280 x 900 (name.png), and whole (name-full.png): in a
    window as tall as the page, so the sidebar is drawn along all of it."""
    browser_page.screenshot(path=f"{name}.png")
    height = min(max(state["height"], HEIGHT), 8000)
    if height != HEIGHT:
        browser_page.set_viewport_size({"width": WIDTH, "height": height})
        browser_page.wait_for_timeout(500)
    browser_page.screenshot(path=f"{name}-full.png")
    browser_page.set_viewport_size({"width": WIDTH, "height": HEIGHT})


def check_page(browser_page, page, origin, known, shots, base, heard):
    """The problems and notes of one page."""
    heard.clear()
    url = origin + urllib.parse.quote(page.path, safe="/()_:,-.~*")
    try:
        browser_page.goto(url, wait_until="load", timeout=30_000)
    except PlaywrightError as error:
        return heard + [f"did not load: {error.message.splitlines()[0]}"], []
    state = wait_for_render(browser_page, page)
    problems, notes = [], []
    if state is None:
        problems.append("did not render (no title in the page's main content after 20 s)")
    else:
        problems, notes = content_problems(page, state, url, origin, known)
        if page.closely:
            name = page.path[len(f"/{base}" if base else ""):].strip("/").replace("/", "_")
            screenshot(browser_page, state, os.path.join(shots, name))
    return heard + problems, notes


def check_shard(arguments):
    """Checks `pages` in a browser of its own; the report lines, failures and notes of each page,
    by its number in the whole list (a shard of the pages, checked beside the others)."""
    pages_with_numbers, origin, known, shots, base, chromium = arguments
    results = []
    with sync_playwright() as playwright:
        # The browser given, never one of Playwright's own: nothing is downloaded. Playwright runs
        # it without its sandbox, which Chromium refuses to use as root.
        executable = shutil.which(chromium) or chromium
        browser = playwright.chromium.launch(executable_path=executable, args=["--disable-gpu"])
        browser_page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT}, device_scale_factor=1)
        heard = []  # what the page said while it was checked

        def hear(problem):
            if problem:
                heard.append(problem)

        browser_page.on("console", lambda message: hear(console_problem(message)))
        browser_page.on("pageerror", lambda error: hear(f"uncaught exception: {error.stack or error.message}"))
        for number, page in pages_with_numbers:
            problems, page_notes = check_page(browser_page, page, origin, known, shots, base, heard)
            report = [f"{'FAIL' if problems else 'ok  '} {page.label():8} {page.path}"]
            report.extend(f"       {problem}" for problem in problems)
            results.append((number, report, [f"{page.path}: {problem}" for problem in problems],
                            [f"{page.path}: {note}" for note in page_notes]))
        browser.close()
    return results


def check(site, base, origin, chromium, out, modules, only="", workers=1):
    every_page = pages(site, base, modules)
    known = {page.path.lower().rstrip("/") for page in every_page}
    chosen = [page for page in every_page if only.lower() in page.path.lower()]
    prefix = f"/{base}" if base else ""
    # A module whose catalog the merge left out (or that was never built) has no landing page.
    absent = [module for module in modules if f"{prefix}/documentation/{module}".lower() not in known]
    shots = os.path.join(out, "screenshots")
    os.makedirs(shots, exist_ok=True)
    failures, notes, report = [], [], []
    failures.extend(f"{module}: the site has no landing page for this module" for module in absent)
    # Pages dealt round to `workers` browsers, each in a process of its own: much of a page's time
    # is waiting for it to render, which the others fill.
    numbered = list(enumerate(chosen))
    shards = [(numbered[index::workers], origin, known, shots, base, chromium) for index in range(workers)]
    if workers == 1:
        results = check_shard(shards[0])
    else:
        with concurrent.futures.ProcessPoolExecutor(max_workers=workers) as pool:
            results = [result for shard in pool.map(check_shard, shards) for result in shard]
    for _, page_report, page_failures, page_notes in sorted(results, key=lambda result: result[0]):
        report.extend(page_report)
        failures.extend(page_failures)
        notes.extend(page_notes)
    with open(os.path.join(out, "report.txt"), "w") as file:
        file.write("\n".join(report + [""] + notes) + "\n")
    for note in notes:
        print(f"   note: {note}")
    for failure in failures:
        print(f"   FAIL {failure}")
    counts = {kind: sum(1 for page in chosen if getattr(page, kind)) for kind in ("landing", "article", "group")}
    symbols = len(chosen) - sum(counts.values())
    print(f"docs check: {len(modules)} modules, {len(chosen)} pages ({counts['landing']} landing pages, {counts['article']} articles, "
          f"{symbols} symbol pages, {counts['group']} member groups), {len(failures)} problems; "
          f"screenshots in {shots}, every page in {os.path.join(out, 'report.txt')}")
    return 1 if failures else 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--site", required=True, help="the folder the site is served from")
    parser.add_argument("--base", default="", help="the path the site is hosted under")
    parser.add_argument("--origin", required=True, help="where the site is served, e.g. http://127.0.0.1:8000")
    parser.add_argument("--chromium", default="chromium", help="the browser to run: a name on PATH or a path")
    parser.add_argument("--out", required=True, help="where screenshots and the report go")
    parser.add_argument("--only", default="", help="check only the pages whose path holds this text")
    parser.add_argument("--workers", type=int, default=max(2, (os.cpu_count() or 1) + 1),
                        help="browsers checking pages side by side (default: one more than the cores)")
    parser.add_argument("modules", nargs="+", help="the modules whose catalogs the site was built from")
    arguments = parser.parse_args()
    sys.exit(check(arguments.site, arguments.base, arguments.origin, arguments.chromium, arguments.out,
                   arguments.modules, arguments.only, max(1, arguments.workers)))
