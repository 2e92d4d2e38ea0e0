#!/usr/bin/env python3
"""browser.py - open a sonde picture in Debian's headless Chromium and check it.

    browser.py flamegraph FILE.svg SHOT.png FRAME...
    browser.py heatmap FILE.html SHOT.png LABEL...
    browser.py towers FILE.svg SHOT.png NAME...
    browser.py shot FILE SHOT.png [zoom=NAME] [search=REGEX]
                                            the screenshot alone (docs/), a
                                            flame graph zoomed and searched

A small Chrome DevTools Protocol driver over --remote-debugging-pipe (fds
3 and 4, NUL-terminated JSON; python3's standard library only): a fresh
profile directory, no network services, the page loaded from file://.  It
takes a PNG screenshot, then checks through the DOM and real input events
(mouse clicks and moves, the search prompt answered as a user would), and
that the page made no request but its own file.  Prints "ok CHECK" or
"FAIL CHECK: why" lines; the exit status is the number of failures.

flamegraph: every FRAME name is a box; box widths are proportional to the
values (each box's width / full width == value / the section's total);
clicking the box of FRAME[0] zooms (its width becomes the full width, a box
outside it hides); Search with the prompt answered FRAME[1] turns the
matching boxes magenta and shows their share.
towers: for each NAME, as the rendered page has it (the boxes' titles
and geometry), "tower NAME: N boxes, widest V of T, below: ROOT;...;PARENT"
(V: the samples of its widest box, T: of all its boxes; the frames under
the widest box, root first, each the box at the level below that holds it) and "above NAME: CALLEE;..." (the names of the boxes over it).
heatmap: the bucket labels are exactly LABEL... (bottom to top of the
first heatmap), hovering a cell shows its time, bucket and count.
"""
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run",
         "--no-default-browser-check", "--disable-extensions", "--hide-scrollbars",
         "--disable-dev-shm-usage", "--remote-debugging-pipe"]


class Browser:
    def __init__(self):
        self.profile = tempfile.mkdtemp(prefix="sonde-pics-chromium-")
        cmd_r, self.cmd_w = os.pipe()
        self.resp_r, resp_w = os.pipe()

        def fds():
            # through high numbers first: either pipe end may be 3 or 4
            a, b = os.dup2(cmd_r, 100), os.dup2(resp_w, 101)
            os.dup2(a, 3)
            os.dup2(b, 4)
        # subprocess closes every fd not in pass_fds after preexec_fn
        self.proc = subprocess.Popen(
            ["chromium"] + FLAGS + ["--user-data-dir=" + self.profile, "about:blank"],
            pass_fds=(3, 4), preexec_fn=fds,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(cmd_r)
        os.close(resp_w)
        self.buf = b""
        self.next_id = 0
        self.events = []
        self.session = None

    def close(self):
        try:
            self.send("Browser.close", session=False)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self.cmd_w)
        os.close(self.resp_r)
        shutil.rmtree(self.profile, ignore_errors=True)

    def _read(self):
        while b"\0" not in self.buf:
            chunk = os.read(self.resp_r, 1 << 20)
            if not chunk:
                raise RuntimeError("chromium closed the pipe")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def send(self, method, params=None, session=True):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self.cmd_w, json.dumps(msg).encode() + b"\0")
        while True:
            m = self._read()
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            self.events.append(m)

    def wait_event(self, method, timeout=30):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            for i, e in enumerate(self.events):
                if e.get("method") == method:
                    return self.events.pop(i)
            self.events.append(self._read())
        raise RuntimeError("no %s within %ds" % (method, timeout))

    def open(self, path, width, height):
        t = self.send("Target.createTarget", {"url": "about:blank"})
        a = self.send("Target.attachToTarget", {"targetId": t["targetId"], "flatten": True})
        self.session = a["sessionId"]
        self.send("Network.enable")
        self.send("Page.enable")
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        self.url = "file://" + os.path.abspath(path)
        self.send("Page.navigate", {"url": self.url})
        self.wait_event("Page.loadEventFired")

    def js(self, expr):
        r = self.send("Runtime.evaluate", {"expression": expr, "returnByValue": True})
        if "exceptionDetails" in r:
            raise RuntimeError("script error: %s" % r["exceptionDetails"])
        return r["result"].get("value")

    def mouse(self, kind, x, y):
        p = {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1}
        if kind == "mouseMoved":
            p["button"] = "none"
        self.send("Input.dispatchMouseEvent", p)

    def click(self, x, y):
        self.mouse("mouseMoved", x, y)
        self.mouse("mousePressed", x, y)
        self.mouse("mouseReleased", x, y)

    def shot(self, out):
        data = self.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True})
        with open(out, "wb") as f:
            f.write(base64.b64decode(data["data"]))

    def requests(self):
        """every URL the page asked for (events read so far)"""
        return [e["params"]["request"]["url"] for e in self.events
                if e.get("method") == "Network.requestWillBeSent"]


failures = 0


def check(name, ok, why=""):
    global failures
    if ok:
        print("ok " + name)
    else:
        failures += 1
        print("FAIL %s: %s" % (name, why))


BOX = """(function (name) {
  var g = Array.from(document.querySelectorAll('g.f')).find(function (e) {
    return e.querySelector('desc').textContent === name && e.dataset.s === '0'; });
  if (!g) return null;
  var r = g.querySelector('rect'), b = r.getBoundingClientRect();
  return {x: +r.getAttribute('x'), w: +r.getAttribute('width'), fill: r.getAttribute('fill'),
          cx: b.left + b.width / 2, cy: b.top + b.height / 2,
          hidden: getComputedStyle(g).display === 'none', text: g.querySelector('text').textContent};
})"""


def flamegraph(b, frames):
    names = b.js("Array.from(document.querySelectorAll('g.f desc')).map(function (e) { return e.textContent; })")
    for f in frames:
        check("frame " + f, f in names, "not among %d boxes" % len(names))
    labels = b.js("Array.from(document.querySelectorAll('g.f text')).map(function (e) { return e.textContent; })")
    check("labels drawn", any(l == frames[0] for l in labels), "no box shows %r" % frames[0])
    bad = b.js("""(function () {
      var full = 1180, tot = {}, bad = [];
      document.querySelectorAll('g.f.root').forEach(function (g) { tot[g.dataset.s] = +g.dataset.v; });
      document.querySelectorAll('g.f').forEach(function (g) {
        var w = +g.querySelector('rect').getAttribute('width'), want = +g.dataset.v / tot[g.dataset.s] * full;
        if (Math.abs(w - want) > 0.01) bad.push(g.querySelector('desc').textContent + ' ' + w + ' != ' + want);
      });
      return bad; })()""")
    check("widths proportional to values", not bad, "; ".join(bad[:5]))
    # a click on FRAME[0] zooms: it takes the full width, a box outside hides
    target = b.js(BOX + "(%s)" % json.dumps(frames[0]))
    b.click(target["cx"], target["cy"])
    after = b.js(BOX + "(%s)" % json.dumps(frames[0]))
    check("click zooms to full width", abs(after["x"] - 10) < 0.01 and abs(after["w"] - 1180) < 0.01,
          "x %.2f width %.2f after the click" % (after["x"], after["w"]))
    hidden = b.js("document.querySelectorAll('g.f.hide').length")
    check("zoom hides the boxes outside", hidden > 0, "nothing hidden")
    # every callee of the clicked box stays, and they fill its width again
    lost = b.js("""(function (name) {
      var g = Array.from(document.querySelectorAll('g.f[data-s="0"]')).find(function (e) {
        return e.querySelector('desc').textContent === name; });
      var d = +g.dataset.d, x0 = +g.dataset.x, w0 = +g.dataset.w, lost = [], kids = 0;
      document.querySelectorAll('g.f[data-s="0"]').forEach(function (e) {
        var x = +e.dataset.x, w = +e.dataset.w;
        if (+e.dataset.d <= d || x < x0 - 0.01 || x + w > x0 + w0 + 0.01) return;
        if (e.classList.contains('hide')) lost.push(e.querySelector('desc').textContent);
        if (+e.dataset.d === d + 1) kids += +e.querySelector('rect').getAttribute('width');
      });
      return {lost: lost, kids: kids}; })(%s)""" % json.dumps(frames[0]))
    check("zoom keeps every callee", not lost["lost"] and abs(lost["kids"] - 1180) < 0.05,
          "hidden %r, callees %.2f px wide" % (lost["lost"], lost["kids"]))
    b.js("unzoom(0)")
    # Search: the button opens a prompt, answered as a user would
    sb = b.js("(function () { var r = document.getElementById('search').getBoundingClientRect();"
              " return {x: r.left + r.width / 2, y: r.top + r.height / 2}; })()")
    b.mouse("mouseMoved", sb["x"], sb["y"])
    b.mouse("mousePressed", sb["x"], sb["y"])
    # the prompt blocks the page until it is answered, so the release waits
    b.next_id += 1
    os.write(b.cmd_w, json.dumps({"id": b.next_id, "method": "Input.dispatchMouseEvent",
                                  "sessionId": b.session,
                                  "params": {"type": "mouseReleased", "x": sb["x"], "y": sb["y"],
                                             "button": "left", "clickCount": 1}}).encode() + b"\0")
    b.wait_event("Page.javascriptDialogOpening")
    b.send("Page.handleJavaScriptDialog", {"accept": True, "promptText": frames[1]})
    hit = b.js(BOX + "(%s)" % json.dumps(frames[1]))
    check("search highlights", hit["fill"] == "rgb(230,0,230)", "fill is %s" % hit["fill"])
    matched = b.js("document.querySelector('text.matched').textContent")
    check("search shows the share", matched.startswith("Matched: ") and matched.endswith("%"),
          "matched text %r" % matched)
    return matched


TOWERS = """(function (name) {
  function box(g) { var r = g.querySelector('rect');
    return {g: g, d: +g.dataset.d, x: +r.getAttribute('x'), w: +r.getAttribute('width'),
            v: +g.dataset.v, n: g.querySelector('title').textContent.replace(/ \\([0-9]+, [0-9.]+%\\)$/, '')}; }
  var all = Array.from(document.querySelectorAll('g.f[data-s="0"]')).map(box);
  var mine = all.filter(function (b) { return b.n === name; });
  if (!mine.length) return {n: 0, v: 0, total: 0, below: [], above: []};
  var top = mine.reduce(function (a, b) { return b.w > a.w ? b : a; });
  var below = [], above = {};
  for (var d = top.d - 1; d >= 0; d--) {
    var p = all.find(function (b) { return b.d === d && b.x <= top.x + 0.001 && b.x + b.w >= top.x + top.w - 0.001; });
    if (!p) break;
    below.unshift(p.n);
  }
  all.forEach(function (b) { if (b.d > top.d && b.x >= top.x - 0.001 && b.x + b.w <= top.x + top.w + 0.001) above[b.n] = 1; });
  var total = mine.reduce(function (a, b) { return a + b.v; }, 0);
  return {n: mine.length, v: top.v, total: total, below: below, above: Object.keys(above).sort()};
})"""


def towers(b, names):
    for n in names:
        t = b.js(TOWERS + "(%s)" % json.dumps(n))
        print("tower %s: %d boxes, widest %d of %d, below: %s" % (n, t["n"], t["v"], t["total"], ";".join(t["below"])))
        print("above %s: %s" % (n, ";".join(t["above"])))


def heatmap(b, labels):
    got = b.js("Array.from(document.querySelectorAll('#hm0 text.bucket')).map(function (e) {"
               " return e.textContent; })")
    check("bucket labels", got == labels, "%r != %r" % (got, labels))
    ncells = b.js("document.querySelectorAll('rect.cell').length")
    check("cells drawn", ncells > 0, "no cells")
    cell = b.js("""(function () {
      var r = Array.from(document.querySelectorAll('#hm0 rect.cell')).find(function (c) { return +c.dataset.c > 0; });
      var b = r.getBoundingClientRect();
      return {x: b.left + b.width / 2, y: b.top + b.height / 2, t: r.dataset.t, b: r.dataset.b, c: r.dataset.c}; })()""")
    b.mouse("mouseMoved", cell["x"], cell["y"])
    shown = b.js("document.getElementById('details').textContent")
    want = "%s  %s  count %s" % (cell["t"], cell["b"], cell["c"])
    check("hover shows time, bucket, count", shown == want, "%r != %r" % (shown, want))


def main():
    kind, path, shot, args = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    b = Browser()
    try:
        b.open(path, 1240, 900)
        if kind == "shot":	# the whole page, up to 3000 px
            h = b.js("document.documentElement.getBoundingClientRect().height")
            b.send("Emulation.setDeviceMetricsOverride",
                   {"width": 1240, "height": min(int(h) + 16, 3000), "deviceScaleFactor": 1, "mobile": False})
            for a in args:
                what, _, arg = a.partition("=")
                if what == "zoom":
                    box = b.js(BOX + "(%s)" % json.dumps(arg))
                    b.click(box["cx"], box["cy"])
                elif what == "search":
                    b.js("search(%s)" % json.dumps(arg))
        b.shot(shot)
        if kind == "flamegraph":
            flamegraph(b, args)
        elif kind == "heatmap":
            heatmap(b, args)
        elif kind == "towers":
            towers(b, args)
        urls = b.requests()
        check("no request leaves the page", urls == [b.url], "requests: %r" % urls)
    finally:
        b.close()
    sys.exit(failures)


if __name__ == "__main__":
    main()
