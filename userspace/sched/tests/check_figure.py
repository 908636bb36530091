#!/usr/bin/env python3
"""check_figure.py - checks of gsync-sched's SVG figures (tests/test_cli.sh).

  check_figure.py chart SVG SWEEP.json
      the line chart of "sweep --svg"; SWEEP.json is the same sweep's --json
  check_figure.py schedule SVG TOPOLOGY.json SCHEDULE.json
      a schedule drawn on its topology ("optimize/simulate/compare --svg")

The figures are drawn by cairo, which writes text as glyph outlines; their
words and what was drawn where are in the <metadata> element (namespace
urn:x-gsync:figure:1, see userspace/sched/figure.h). The checks read that
and compare it with the JSON the tool printed or read, and check that the
drawing has the marks the metadata promises (a filled marker of the right
colour at every island). Exit 0 if all pass, else 1 with the failures on
stderr.
"""
import json
import math
import re
import sys
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"
GS = "{urn:x-gsync:figure:1}"
UNITS = {"s": 1.0, "ms": 1e-3, "\u00b5s": 1e-6}
failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
    return cond


def rgb_of(style, prop):
    """fill:rgb(12.5%,40%,0%) -> (0.125, 0.4, 0.0), or None"""
    m = re.search(r"(?:^|;)" + prop + r":rgb\(([-0-9.]+)%,([-0-9.]+)%,([-0-9.]+)%\)", style or "")
    return tuple(float(v) / 100 for v in m.groups()) if m else None


def hex_rgb(h):
    return tuple(int(h[i:i + 2], 16) / 255 for i in (1, 3, 5))


def same_rgb(a, b):
    return a is not None and b is not None and all(abs(x - y) < 0.005 for x, y in zip(a, b))


def load(path):
    """parse the SVG (well-formed XML or an exception), return root, figure
    metadata and the drawn paths as (fill, stroke, first point)"""
    root = ET.parse(path).getroot()
    check(root.tag == SVG + "svg", "the root element is <svg>")
    title = root.find(SVG + "title")
    check(title is not None and (title.text or "").strip(), "a non-empty <title>")
    check(root.find(SVG + "desc") is not None, "a <desc>")
    fig = root.find(SVG + "metadata/" + GS + "figure")
    if fig is None:
        raise SystemExit("no <metadata><gs:figure> in " + path)
    paths = []
    for p in root.iter(SVG + "path"):
        m = re.match(r"\s*M\s*([-0-9.e]+)[ ,]+([-0-9.e]+)", p.get("d", ""))
        if m:
            st = p.get("style", "")
            paths.append((rgb_of(st, "fill"), rgb_of(st, "stroke"), float(m.group(1)), float(m.group(2))))
    check(len(paths) > 20, "cairo drew paths (%d)" % len(paths))
    # text is drawn as glyphs: <use xlink:href="#glyph...">
    uses = [u for u in root.iter(SVG + "use")]
    check(len(uses) > 20, "text is drawn (%d glyphs placed)" % len(uses))
    return root, fig, paths


def check_chart(svg, sweep_json):
    _, fig, paths = load(svg)
    sw = json.load(open(sweep_json))
    rows = sw["rows"]
    check(fig.get("kind") == "chart", "kind is chart")
    keys = ["optimum_s", "ring_s", "one_clique_s"]
    data = [r[k] for r in rows for k in keys if r[k] is not None]

    # y: round ticks from 0, in a unit, covering the data tightly
    ax = {a.get("name"): a for a in fig.findall(GS + "axis")}
    y = ax.get("y")
    if not check(y is not None, "a y axis"):
        return
    unit = y.get("unit")
    check(unit in UNITS, "y unit %r is s, ms or \u00b5s" % unit)
    check(y.get("label") == "time per synchronization", "y axis label")
    per = UNITS.get(unit, 1)
    step = float(y.get("step"))
    mant = step / 10 ** math.floor(math.log10(step) + 1e-12)
    check(any(abs(mant - m) < 1e-9 for m in (1, 2, 5)), "y step %g is 1, 2 or 5 times a power of ten" % step)
    decimals = max(0, -math.floor(math.log10(step) + 1e-12))
    ticks = y.findall(GS + "tick")
    check(len(ticks) >= 3, "at least 3 y ticks (%d)" % len(ticks))
    for i, t in enumerate(ticks):
        v = float(t.get("value"))
        check(abs(v - i * step) < step * 1e-9, "y tick %d is %g * %d" % (i, step, i))
        check(t.get("label") == "%.*f" % (decimals, i * step),
              "y tick label %r is the round number %.*f" % (t.get("label"), decimals, i * step))
    top = float(ticks[-1].get("value"))
    mx = max(data) / per
    check(top >= mx - 1e-9 and top - step < mx, "the last y tick %g %s is the first >= the data's maximum %g" % (top, unit, mx))
    if unit == "ms" or unit == "\u00b5s":
        check(1 <= mx < 1000, "the unit fits the data (%g %s)" % (mx, unit))
    else:
        check(mx >= 1, "the unit fits the data (%g s)" % mx)
    ys = [float(t.get("y")) for t in ticks]
    check(all(a > b for a, b in zip(ys, ys[1:])), "y ticks go up the page")

    # x: one tick per swept value, in order
    x = ax.get("x")
    if check(x is not None, "an x axis"):
        check([t.get("label") for t in x.findall(GS + "tick")] == [r["value"] for r in rows],
              "x ticks are the swept values")
        check("reach" in (x.get("label") or ""), "x axis label names what was swept")

    # series and legend
    series = fig.findall(GS + "series")
    check(len(series) == 3, "3 series (%d)" % len(series))
    legend = fig.findall(GS + "legend/" + GS + "entry")
    check(len(legend) == len(series), "one legend entry per series (%d)" % len(legend))
    for s, k in zip(series, keys):
        name = s.get("name")
        want = [r[k] for r in rows]
        pts = s.findall(GS + "point")
        check(int(s.get("points")) == len(pts) == sum(v is not None for v in want),
              "series %r has a point per feasible value" % name)
        for p in pts:
            v = want[int(p.get("x"))]
            check(v is not None and abs(float(p.get("y")) - v / per) <= 1e-6 * max(1, v / per),
                  "series %r at %s is the --json value" % (name, rows[int(p.get("x"))]["value"]))
        check(any((e.get("label") or "").startswith(name) for e in legend), "legend names series %r" % name)
        col = hex_rgb(s.get("color"))
        if len(pts) >= 2:
            check(any(same_rgb(st, col) and f is None for f, st, _, _ in paths),
                  "series %r is drawn as a line in its colour" % name)
        check(sum(same_rgb(f, col) for f, _, _, _ in paths) >= 1 + (len(pts) > 0),
              "series %r has markers in its colour (and one in the legend)" % name)


def check_schedule(svg, topo_json, sched_json):
    _, fig, paths = load(svg)
    topo = json.load(open(topo_json))
    sched = json.load(open(sched_json))
    islands = [i["id"] for i in topo["islands"]]
    nodes = islands + [n["id"] for n in topo.get("nodes", [])]
    rounds = sched["rounds"]
    W, H = float(fig.get("width")), float(fig.get("height"))
    check(fig.get("kind") == "schedule", "kind is schedule")
    check(fig.get("topology") == topo["name"], "names the topology")
    geo = all("lat" in i and "lon" in i for i in topo["islands"])
    check(fig.get("layout") == ("geographic" if geo else "circle"),
          "layout %s (islands %s coordinates)" % (fig.get("layout"), "have" if geo else "lack"))
    panels = fig.findall(GS + "panel")
    check(int(fig.get("rounds")) == len(rounds) == len(panels),
          "one panel per round (%d panels, %d rounds)" % (len(panels), len(rounds)))
    boxes = []
    any_agg = False
    for r, (p, rd) in enumerate(zip(panels, rounds)):
        tag = "round %d" % (r + 1)
        check(p.get("round") == str(r + 1), tag + ": panels in round order")
        px, py, pw, ph = (float(p.get(k)) for k in ("x", "y", "width", "height"))
        check(0 <= px and px + pw <= W + 0.5 and 0 <= py and py + ph <= H + 0.5, tag + ": the panel is on the page")
        for b in boxes:
            check(px >= b[0] + b[2] or b[0] >= px + pw or py >= b[1] + b[3] or b[1] >= py + ph,
                  tag + ": panels do not overlap")
        boxes.append((px, py, pw, ph))

        # the cliques are the schedule's
        cl = p.findall(GS + "clique")
        check(len(cl) == len(rd["cliques"]), tag + ": every clique listed")
        color = {}
        for c, want in zip(cl, rd["cliques"]):
            members = c.get("members").split()
            check(sorted(members) == sorted(want["members"]), tag + ": clique members %s" % members)
            if want.get("pattern", "auto") != "auto":
                check(c.get("pattern") == want["pattern"], tag + ": clique pattern %s" % want["pattern"])
            if c.get("pattern") == "aggregator" and len(members) > 1:
                any_agg = True
                check(c.get("aggregator") in nodes, tag + ": the aggregator is named")
                if "aggregator" in want:
                    check(c.get("aggregator") == want["aggregator"], tag + ": the schedule's aggregator")
            if len(members) > 1:
                color[c.get("index")] = hex_rgb(c.get("color"))
        check(len(set(color.values())) == len(color) or len(color) > 10, tag + ": one colour per clique")
        check(p.get("cliques") == str(len(color)), tag + ": the header counts the cliques")

        # every island (and network node) drawn, in its clique's colour
        drawn = p.findall(GS + "node")
        check(sorted(n.get("id") for n in drawn) == sorted(nodes), tag + ": every island and node drawn once")
        for n in drawn:
            if n.get("kind") != "island":
                continue
            x, y, rad = float(n.get("x")), float(n.get("y")), float(n.get("r"))
            check(px <= x <= px + pw and py <= y <= py + ph, tag + ": island %s inside its panel" % n.get("id"))
            want = color.get(n.get("clique"), (1.0, 1.0, 1.0))
            check(any(same_rgb(f, want) and abs(mx - (x + rad)) < 0.05 and abs(my - y) < 0.05
                      for f, _, mx, my in paths),
                  tag + ": a marker at island %s in its clique's colour" % n.get("id"))
        for a in p.findall(GS + "aggregator"):
            x, y = float(a.get("x")), float(a.get("y"))
            rad = float(drawn[0].get("r"))
            want = color.get(a.get("clique"))
            check(any(same_rgb(f, want) and same_rgb(st, (0, 0, 0)) and abs(mx - x) < 0.05
                      and abs(my - (y - 1.3 * rad)) < 0.05 for f, st, mx, my in paths),
                  tag + ": a diamond at aggregator %s" % a.get("id"))
        check(len(p.findall(GS + "aggregator")) == sum(
            c.get("pattern") == "aggregator" and int(c.get("size")) > 1 for c in cl), tag + ": every aggregator marked")

    legend = [e.get("label") for e in fig.findall(GS + "legend/" + GS + "entry")]
    check(any(e.startswith("island") for e in legend), "the legend explains islands")
    check(any(e.startswith("clique") for e in legend), "the legend explains clique lines")
    check(any(e.startswith("aggregator") for e in legend) == any_agg, "the legend explains aggregators if any")
    check(any(e.startswith("physical link") for e in legend) == (topo.get("kind", "links") == "links" and bool(topo.get("links"))),
          "the legend explains physical links if drawn")


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "chart":
        check_chart(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 5 and sys.argv[1] == "schedule":
        check_schedule(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        sys.exit(__doc__)
    for f in failures:
        print("check_figure: " + f, file=sys.stderr)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
