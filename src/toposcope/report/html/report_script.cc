// report/html/report_script: the JavaScript of the HTML report (see report_assets.h), one raw
// string per part: helpers, the fabric and the rings, the GPUs of a host, the time sections (clocks,
// findings, entropy), the hypothesis tree and the inputs, then the driver that draws every section.
// The script builds the page with DOM calls only (textContent, setAttribute: no HTML parsing of
// the data), so a host name cannot inject markup. Every drawn item carries data-kind (host, cable,
// gpu-link, p2p-cell, ring-hop, finding, entropy-series, decision, symptom, input-file; the network
// sections' in report_script_net.cc) for tests.
#include <string>

#include "toposcope/report/html/report_assets.h"

namespace toposcope::report::html {

namespace {

// Helpers: element builders, number formats, colour scales, tables, the layout of leaves and hosts.
constexpr const char* kHelpers = R"JS(
"use strict";
const T_START = performance.now();
const D = JSON.parse(document.getElementById("report-data").textContent);
const NS = "http://www.w3.org/2000/svg";
const HOSTS = D.hosts || [];
function el(tag, attrs, text) {
  const e = document.createElement(tag);
  for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
  if (text !== undefined && text !== null) e.textContent = String(text);
  return e;
}
function sv(tag, attrs, title) {
  const e = document.createElementNS(NS, tag);
  for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
  if (title) { const t = document.createElementNS(NS, "title"); t.textContent = title; e.appendChild(t); }
  return e;
}
function svgText(parent, x, y, s, attrs) {
  const t = sv("text", Object.assign({x: x, y: y}, attrs || {}));
  t.textContent = String(s);
  parent.appendChild(t);
  return t;
}
function bodyOf(id) { return document.querySelector("section#" + id + " .body"); }
function fmt(x, d) { return (x === null || x === undefined || !isFinite(x)) ? "-" : Number(x).toFixed(d === undefined ? 2 : d); }
function note(parent, text) { parent.appendChild(el("p", {class: "note"}, text)); }
function median(a) {
  const s = a.filter(v => v !== null && isFinite(v)).sort((x, y) => x - y);
  return s.length ? s[Math.floor((s.length - 1) / 2)] : null;
}
// 0..1 -> a colour from blue (low) through yellow to red (high).
function heat(t) {
  if (t === null || !isFinite(t)) return "#cfd4da";
  t = Math.max(0, Math.min(1, t));
  const stops = [[49, 54, 149], [69, 117, 180], [171, 217, 233], [254, 224, 144], [244, 109, 67], [165, 0, 38]];
  const p = t * (stops.length - 1), i = Math.min(stops.length - 2, Math.floor(p)), f = p - i;
  const c = stops[i].map((v, k) => Math.round(v + f * (stops[i + 1][k] - v)));
  return "rgb(" + c.join(",") + ")";
}
function range(vals) {
  const v = vals.filter(x => x !== null && isFinite(x));
  if (!v.length) return [0, 1];
  let lo = Math.min.apply(null, v), hi = Math.max.apply(null, v);
  if (hi <= lo) hi = lo + 1e-9;
  return [lo, hi];
}
// A table: headers, rows of cells (string, number or a DOM node); options {cls, rowAttrs(i), numeric[]}.
function table(headers, rows, opt) {
  opt = opt || {};
  const t = el("table", opt.cls ? {class: opt.cls} : {});
  const h = el("tr");
  headers.forEach(x => h.appendChild(el("th", {}, x)));
  t.appendChild(h);
  rows.forEach((r, i) => {
    const tr = el("tr", opt.rowAttrs ? opt.rowAttrs(i) : {});
    r.forEach(c => {
      const td = el("td", typeof c === "number" ? {class: "num"} : {});
      if (c instanceof Node) td.appendChild(c); else td.textContent = (c === null || c === undefined) ? "-" : String(c);
      tr.appendChild(td);
    });
    t.appendChild(tr);
  });
  return t;
}
function legend(parent, items) {
  const d = el("div", {class: "legend"});
  items.forEach(([color, label, dashed]) => {
    const s = el("span");
    const i = el("i");
    i.style.background = dashed ? "repeating-linear-gradient(90deg," + color + " 0 5px,transparent 5px 8px)" : color;
    s.appendChild(i);
    s.appendChild(document.createTextNode(label));
    d.appendChild(s);
  });
  parent.appendChild(d);
}
function colorBar(parent, lo, hi, unit) {
  const d = el("div", {class: "legend"});
  const s = el("span");
  for (let k = 0; k <= 5; ++k) {
    const sw = el("span", {class: "swatch"});
    sw.style.background = heat(k / 5);
    s.appendChild(sw);
  }
  s.appendChild(document.createTextNode(" " + fmt(lo, 3) + " .. " + fmt(hi, 3) + " " + unit));
  d.appendChild(s);
  parent.appendChild(d);
}
function hostLink(name) {
  const a = el("a", {class: "host"}, name);
  a.addEventListener("click", () => selectHost(name, true));
  return a;
}
// Leaves as boxes in rows, hosts as cells inside; returns {width, height, hosts: name -> {x, y},
// leaves: [{name, x, y, w, h}], pods: [{name, x, y, w, h, n}]}. `cell` is a host cell's size in
// pixels. `pods` ([{name, leaves: [leaf index]}], optional) groups the leaves: each pod's leaves are
// laid out together from a new row, under a band for the pod's name, and its box surrounds them.
function layoutLeaves(leaves, width, top, cell, pods) {
  const pos = {hosts: {}, leaves: [], pods: []};
  const size = l => {
    const n = l.hosts.length, cols = Math.max(2, Math.ceil(Math.sqrt(n * 2)));
    return {n: n, cols: cols, w: Math.max(cols * cell + 8, 120), h: Math.max(1, Math.ceil(n / cols)) * cell + 22};
  };
  // The order: each pod's leaves, then the leaves of no pod.
  const groups = [], inPod = new Set();
  (pods || []).forEach(p => {
    const ls = p.leaves.filter(i => i < leaves.length && !inPod.has(i));
    ls.forEach(i => inPod.add(i));
    if (ls.length) groups.push({name: p.name, leaves: ls});
  });
  const rest = leaves.map((l, i) => i).filter(i => !inPod.has(i));
  if (rest.length) groups.push({name: null, leaves: rest});
  // One row of leaves spreads over the width; more wrap with a fixed gap.
  const total = leaves.reduce((a, l) => a + size(l).w, 0);
  const gap = !groups.some(g => g.name) && total + 10 * (leaves.length + 1) <= width ? (width - total) / (leaves.length + 1) : 10;
  let x = gap, y = top, rowH = 0;
  groups.forEach(g => {
    if (g.name !== null || groups.length > 1) {
      if (x > gap) { x = gap; y += rowH + 10; rowH = 0; }
    }
    const box = g.name !== null ? {name: g.name, x: gap - 5, y: y, w: 0, h: 0, n: 0} : null;
    if (box) y += 16;
    g.leaves.forEach(i => {
      const l = leaves[i];
      const {n, cols, w, h} = size(l);
      if (x + w > width - gap && x > gap) { x = gap; y += rowH + 10; rowH = 0; }
      pos.leaves.push({name: l.name, x: x, y: y, w: w, h: h, unplaced: !!(l.unplaced || l.guessed), n: n});
      const x0 = x + (w - cols * cell) / 2;
      l.hosts.forEach((hi, k) => {
        pos.hosts[HOSTS[hi]] = {x: x0 + (k % cols) * cell, y: y + 18 + Math.floor(k / cols) * cell};
      });
      if (box) { box.w = Math.max(box.w, x + w + 5 - box.x); box.n += n; }
      x += w + gap;
      rowH = Math.max(rowH, h);
    });
    if (box) { box.h = y + rowH + 5 - box.y; pos.pods.push(box); }
  });
  pos.height = y + rowH + 10;
  return pos;
}
)JS";

// The fabric (spines, leaves, hosts, cables with their tomography latency and marks) and the rings.
constexpr const char* kFabric = R"JS(
const MARK_COLOR = {degraded: "var(--bad)", flapping: "var(--flap)", congested: "var(--warn)"};
// A switch's outline: orange when congested, brown for another fault ranked on it (detour, ...).
function switchStroke(m) { return !m ? "#8795a8" : (m.indexOf("congested_switch") >= 0 ? "var(--warn)" : "#8c564b"); }
// One leaf's cables to the spines as one line to the middle of the spines it reaches: width grows
// with their number, colour the median latency, red / dashed purple when one is degraded / flapping.
function drawLeafUplinks(g, at, leaf, cs, spines, slo, shi) {
  const p = at[leaf];
  const xs = cs.map(c => at[c.a === leaf ? c.b : c.a].x);
  const x = xs.reduce((a, v) => a + v, 0) / xs.length;
  const lat = median(cs.map(c => c.latency_us));
  const marks = cs.filter(c => c.mark).map(c => c.mark);
  const mark = marks.indexOf("flapping") >= 0 ? "flapping" : (marks.length ? marks[0] : "");
  const attrs = {x1: p.x, y1: p.y, x2: x, y2: 42, stroke: mark ? MARK_COLOR[mark] : heat(lat === null ? null : (lat - slo) / (shi - slo)),
    "stroke-width": mark ? 3 : 1 + Math.log2(cs.length) / 2, "stroke-opacity": 0.8, "data-kind": "cable-group",
    "data-cables": cs.length, "data-marked": marks.length};
  if (mark === "flapping") attrs["stroke-dasharray"] = "6 4";
  g.appendChild(sv("line", attrs, leaf + ": " + cs.length + " cable(s) to " + spines.length + " spine(s), median latency " + fmt(lat, 3) +
    " us" + (marks.length ? "; marked: " + cs.filter(c => c.mark).map(c => c.a + " -- " + c.b + " " + c.mark).join(", ") : "")));
}
function drawFabric() {
  const F = D.fabric, b = bodyOf("fabric");
  const leaves = F.leaves || [];
  const nHosts = HOSTS.length, cell = nHosts > 256 ? 9 : (nHosts > 64 ? 14 : 24), width = 1200;
  const cables = (F.cables || []).map(x => ({a: x[0], b: x[1], tier: x[2], rate: x[3], state: x[4], latency_us: x[5], queue_us: x[6], mark: x[7]}));
  const hostCable = {}, switchCables = [];
  const hostSet = new Set(HOSTS);
  cables.forEach(c => {
    if (hostSet.has(c.a)) hostCable[c.a] = c; else if (hostSet.has(c.b)) hostCable[c.b] = c; else switchCables.push(c);
  });
  const spines = (F.spines || []).slice();
  switchCables.forEach(c => { [c.a, c.b].forEach(n => { if (n === "(spines)" && spines.indexOf(n) < 0) spines.push(n); }); });
  const top = spines.length ? 70 : 10;
  const pos = layoutLeaves(leaves, width, top, cell, F.pods);
  const svg = sv("svg", {width: width, height: pos.height, "data-kind": "fabric"});
  const at = {};
  spines.forEach((s, i) => {
    const x = width * (i + 1) / (spines.length + 1);
    at[s] = {x: x, y: 34};
  });
  pos.leaves.forEach(l => { at[l.name] = {x: l.x + l.w / 2, y: l.y}; });
  const hostLat = Object.values(hostCable).map(c => c.latency_us);
  const swLat = switchCables.map(c => c.latency_us);
  const [hlo, hhi] = range(hostLat), [slo, shi] = range(swLat);
  const cg = sv("g"), lg = sv("g"), hg = sv("g");
  svg.appendChild(cg); svg.appendChild(lg); svg.appendChild(hg);
  // Many spines: the cables between a leaf and the spines are drawn as one line per leaf.
  const grouped = spines.length > 16 || switchCables.length > 600;
  const spineSet = new Set(spines), leafSet = new Set(pos.leaves.map(l => l.name)), perLeaf = {};
  switchCables.forEach(c => {
    const p = at[c.a], q = at[c.b];
    if (!p || !q) return;
    if (grouped && (spineSet.has(c.a) && leafSet.has(c.b) || spineSet.has(c.b) && leafSet.has(c.a))) {
      const leaf = leafSet.has(c.a) ? c.a : c.b;
      (perLeaf[leaf] = perLeaf[leaf] || []).push(c);
      return;
    }
    const marked = c.mark && MARK_COLOR[c.mark];
    const attrs = {x1: p.x, y1: p.y + (spines.indexOf(c.a) >= 0 ? 8 : 0), x2: q.x, y2: q.y + (spines.indexOf(c.b) >= 0 ? 8 : 0),
                   stroke: marked ? MARK_COLOR[c.mark] : heat((c.latency_us - slo) / (shi - slo)),
                   "stroke-width": marked ? 4 : 1.6, "data-kind": "cable", "data-mark": c.mark || ""};
    if (c.mark === "flapping") attrs["stroke-dasharray"] = "6 4";
    cg.appendChild(sv("line", attrs, c.a + " -- " + c.b + (c.tier ? " (" + c.tier + ")" : "") + (c.rate ? ", " + c.rate : "") +
      ", latency " + fmt(c.latency_us, 3) + " us" + (c.queue_us !== null ? ", queueing " + fmt(c.queue_us, 3) + " us" : "") +
      (c.mark ? ", " + c.mark : "")));
  });
  Object.keys(perLeaf).sort().forEach(leaf => drawLeafUplinks(cg, at, leaf, perLeaf[leaf], spines, slo, shi));
  const smarks = F.switch_marks || {};
  const spineW = Math.min(100, width / (spines.length + 1) - 2);
  spines.forEach(s => {
    const p = at[s], m = smarks[s];
    lg.appendChild(sv("rect", {x: p.x - spineW / 2, y: p.y - 12, width: spineW, height: 20, rx: 4, fill: m ? "#ffe0c2" : "#e8edf3",
      stroke: switchStroke(m), "stroke-width": m ? 3 : 1, "data-kind": "switch"}, s + (m ? ": " + m.join(", ") : "")));
    if (spineW >= 60) svgText(lg, p.x, p.y + 3, s.length > 18 ? s.slice(0, 17) + "~" : s, {"text-anchor": "middle"});
  });
  const hmarks = F.host_marks || {};
  pos.pods.forEach(p => {
    lg.appendChild(sv("rect", {x: p.x, y: p.y, width: p.w, height: p.h, rx: 6, fill: "none", stroke: "#9aa7b8",
      "stroke-dasharray": "4 3", "data-kind": "pod", "data-pod": p.name}, p.name + ": " + p.n + " hosts (pod inferred from probe latencies)"));
    svgText(lg, p.x + 4, p.y + 12, p.name + " (" + p.n + " hosts)", {class: "pod"});
  });
  pos.leaves.forEach(l => {
    const m = smarks[l.name];
    lg.appendChild(sv("rect", {x: l.x, y: l.y, width: l.w, height: l.h, rx: 4, fill: l.unplaced ? "#fafafa" : "#f1f4f8",
      stroke: switchStroke(m), "stroke-width": m ? 3 : 1, "data-kind": "leaf"},
      l.name + ": " + l.n + " hosts" + (m ? "; " + m.join(", ") : "")));
    svgText(lg, l.x + 4, l.y + 13, (l.name.length > 24 ? l.name.slice(0, 23) + "~" : l.name) + " (" + l.n + ")");
  });
  HOSTS.forEach(h => {
    const p = pos.hosts[h];
    if (!p) return;
    const c = hostCable[h], m = hmarks[h];
    const cm = c && c.mark && MARK_COLOR[c.mark];
    hg.appendChild(sv("rect", {x: p.x, y: p.y, width: cell - 2, height: cell - 2, class: "host", "data-kind": "host", "data-host": h,
      fill: c ? heat((c.latency_us - hlo) / (hhi - hlo)) : "#cfd4da", stroke: cm ? MARK_COLOR[c.mark] : (m ? "var(--bad)" : "#667"),
      "stroke-width": (cm || m) ? 2.5 : 0.5},
      h + (c ? ", uplink " + fmt(c.latency_us, 3) + " us" : "") + (m ? "; " + m.join(", ") : "") + (cm ? "; cable " + c.mark : "")));
  });
  b.appendChild(svg);
  legend(b, [["var(--bad)", "degraded cable / host with a fault"], ["var(--flap)", "flapping cable", true],
             ["var(--warn)", "congested switch or cable"], ["#8c564b", "switch with another fault (detour, ...)"]]);
  if (swLat.some(v => v !== null)) { b.appendChild(el("span", {class: "note"}, "switch cables, tomography latency per crossing:")); colorBar(b, slo, shi, "us"); }
  if (hostLat.some(v => v !== null)) { b.appendChild(el("span", {class: "note"}, "host cells, uplink latency:")); colorBar(b, hlo, hhi, "us"); }
  const known = leaves.filter(l => !l.unplaced && !l.guessed).length;
  note(b, spines.length + " spine(s), " + known + " leaf/leaves, " + nHosts + " host(s); fabric from " +
       (F.source || (known ? "probe RTTs (inferred)" : "nothing: no fabric dump, no path probes")) + "; " + cables.length + " cable(s)." +
       (leaves.some(l => l.guessed) ? " Without a fabric the hosts are grouped by name (a guess), not by leaf." : ""));
  const marked = cables.filter(c => c.mark);
  if (marked.length) {
    b.appendChild(table(["cable", "tier", "rate", "latency us", "queueing us", "mark"],
      marked.map(c => [c.a + " -- " + c.b, c.tier, c.rate, c.latency_us, c.queue_us, c.mark])));
  }
  const sw = Object.keys(smarks);
  if (sw.length) b.appendChild(table(["switch", "faults ranked above 0.5"], sw.map(s => [s, smarks[s].join(", ")])));
  return pos;
}
// A long ring as leaf-to-leaf transitions: one line per ordered leaf pair the ring crosses (width
// grows with its hops), hops inside a leaf written in the leaf's box.
function drawRingByLeaf(svg, pos, hs, n, leafOf) {
  const trans = {}, inside = {}, centre = {};
  pos.leaves.forEach(l => { centre[l.name] = {x: l.x + l.w / 2, y: l.y + l.h / 2}; });
  for (let i = 0; i < n; ++i) {
    const a = leafOf[hs[i]], z = leafOf[hs[(i + 1) % hs.length]];
    if (a === z) inside[a] = (inside[a] || 0) + 1; else trans[a + "\u0000" + z] = (trans[a + "\u0000" + z] || 0) + 1;
  }
  Object.keys(trans).sort().forEach(k => {
    const [a, z] = k.split("\u0000"), p = centre[a], q = centre[z];
    if (!p || !q) return;
    svg.appendChild(sv("line", {x1: p.x, y1: p.y, x2: q.x, y2: q.y, stroke: "var(--warn)", "stroke-opacity": 0.7,
      "stroke-width": 1 + Math.log2(trans[k]), "data-kind": "ring-leaf-hop", "data-hops": trans[k]}, a + " -> " + z + ": " + trans[k] + " hop(s)"));
  });
  pos.leaves.forEach(l => svgText(svg, l.x + 4, l.y + 28, (inside[l.name] || 0) + " hops inside"));
}
function drawRings() {
  const R = D.rings, b = bodyOf("rings");
  const rings = R.rings || [];
  if (!rings.length) { note(b, "No NCCL ring in the inputs (no NCCL_DEBUG=INFO log, no RDMA capture)."); return; }
  const leafOf = {};
  (D.fabric.leaves || []).forEach(l => l.hosts.forEach(h => { leafOf[HOSTS[h]] = l.name; }));
  const rows = rings.map(r => {
    let cross = 0;
    const hs = r.hosts.map(i => HOSTS[i]);
    for (let k = 0; k < hs.length; ++k) {
      const nx = hs[(k + 1) % hs.length];
      if ((k + 1 < hs.length || r.complete) && leafOf[hs[k]] !== leafOf[nx]) ++cross;
    }
    return [r.channel, r.source, r.comm, hs.length, r.complete ? "yes" : "no", cross];
  });
  b.appendChild(table(["channel", "source", "comm", "hosts", "complete", "hops between leaves (or name groups)"], rows));
  if (R.total > rings.length) note(b, rings.length + " of " + R.total + " rings drawn.");
  const picks = el("div");
  b.appendChild(picks);
  const holder = el("div");
  b.appendChild(holder);
  const cell = HOSTS.length > 256 ? 9 : (HOSTS.length > 64 ? 14 : 24), width = 1200;
  const pos = layoutLeaves(D.fabric.leaves || [], width, 10, cell);
  function show(k) {
    picks.querySelectorAll("button").forEach((x, i) => x.classList.toggle("on", i === k));
    holder.textContent = "";
    const r = rings[k], svg = sv("svg", {width: width, height: pos.height, "data-kind": "ring", "data-ring": k});
    pos.leaves.forEach(l => {
      svg.appendChild(sv("rect", {x: l.x, y: l.y, width: l.w, height: l.h, rx: 4, fill: "#f1f4f8", stroke: "#8795a8"}, l.name));
      svgText(svg, l.x + 4, l.y + 13, l.name.length > 24 ? l.name.slice(0, 23) + "~" : l.name);
    });
    const inRing = new Set(r.hosts.map(i => HOSTS[i]));
    if (r.hosts.length <= 128) HOSTS.forEach(h => {
      const p = pos.hosts[h];
      if (p) svg.appendChild(sv("rect", {x: p.x, y: p.y, width: cell - 2, height: cell - 2, class: "host", "data-host": h,
        fill: inRing.has(h) ? "#9ecae1" : "#e5e7ea", stroke: "#667", "stroke-width": 0.5}, h));
    });
    const hs = r.hosts.map(i => HOSTS[i]), c = (cell - 2) / 2;
    const n = r.complete ? hs.length : hs.length - 1;
    if (hs.length > 128) {
      drawRingByLeaf(svg, pos, hs, n, leafOf);
      holder.appendChild(svg);
      note(holder, hs.length + " hosts: the ring is drawn leaf to leaf (line width: hops), hops inside a leaf counted in its box.");
      return;
    }
    for (let i = 0; i < n; ++i) {
      const p = pos.hosts[hs[i]], q = pos.hosts[hs[(i + 1) % hs.length]];
      if (!p || !q) continue;
      const cross = leafOf[hs[i]] !== leafOf[hs[(i + 1) % hs.length]];
      svg.appendChild(sv("line", {x1: p.x + c, y1: p.y + c, x2: q.x + c, y2: q.y + c, stroke: cross ? "var(--warn)" : "var(--accent)",
        "stroke-width": cross ? 2 : 1.5, "stroke-opacity": 0.85, "data-kind": "ring-hop"},
        "hop " + i + ": " + hs[i] + " -> " + hs[(i + 1) % hs.length] + (cross ? " (between leaves)" : "")));
    }
    if (hs.length) {
      const p = pos.hosts[hs[0]];
      if (p) svg.appendChild(sv("circle", {cx: p.x + c, cy: p.y + c, r: cell / 2 + 2, fill: "none", stroke: "#000", "stroke-width": 2}, "first rank's host " + hs[0]));
    }
    holder.appendChild(svg);
    legend(holder, [["var(--accent)", "hop inside a leaf"], ["var(--warn)", "hop between leaves"]]);
  }
  rings.forEach((r, k) => {
    const bt = el("button", {class: "pick"}, "channel " + r.channel + " (" + r.source + ")");
    bt.addEventListener("click", () => show(k));
    picks.appendChild(bt);
  });
  show(0);
}
)JS";

// The GPUs of each host: a table of hosts by shape, the degraded hosts, and the picked host's
// graph (islands, NVLink lanes, degraded links) and P2P bandwidth heatmap.
constexpr const char* kNodes = R"JS(
const NODE_BY_HOST = {};
(D.nodes || []).forEach(n => { NODE_BY_HOST[HOSTS[n.host]] = n; });
const ISLAND_FILL = ["#c6dbef", "#c7e9c0", "#fdd0a2", "#dadaeb", "#fcbba1", "#d9d9d9", "#f6e8c3", "#c7eae5"];
function nodeShape(n) {
  const kinds = n.islands.map(i => i[0]).sort().join("+");
  const types = {};
  n.links.forEach(l => { types[l[2]] = (types[l[2]] || 0) + 1; });
  return n.gpus + " GPU(s), islands " + (kinds || "none") + ", links " + Object.keys(types).sort().map(t => t + " x" + types[t]).join(" ");
}
function drawNodesOverview() {
  const b = bodyOf("nodes"), nodes = D.nodes || [];
  if (!nodes.length) { note(b, "No GPU inventory in the inputs."); return; }
  const shapes = {};
  nodes.forEach(n => { const s = nodeShape(n); (shapes[s] = shapes[s] || []).push(HOSTS[n.host]); });
  const keys = Object.keys(shapes).sort((x, y) => shapes[y].length - shapes[x].length || (x < y ? -1 : 1));
  b.appendChild(table(["hosts", "shape", "e.g."], keys.slice(0, 30).map(k => [shapes[k].length, k, hostLink(shapes[k][0])])));
  const bad = nodes.filter(n => n.links.some(l => l[7]));
  note(b, bad.length + " host(s) with a degraded GPU link" + (bad.length > 200 ? " (first 200 listed)" : "") + ":");
  if (bad.length) {
    const d = el("div", {class: "scroll"});
    d.appendChild(table(["host", "GPUs", "degraded links", "e.g."], bad.slice(0, 200).map(n => {
      const l = n.links.find(x => x[7]);
      return [hostLink(HOSTS[n.host]), n.gpus, n.links.filter(x => x[7]).length, l[8]];
    })));
    b.appendChild(d);
  }
  b.appendChild(el("div", {id: "node-view"}));
  const first = bad.length ? bad[0] : nodes[0];
  drawNode(HOSTS[first.host]);
}
function drawNode(host) {
  const v = document.getElementById("node-view");
  if (!v) return;
  v.textContent = "";
  const n = NODE_BY_HOST[host];
  v.appendChild(el("h3", {"data-host": host}, host));
  if (!n) { note(v, "No GPU data for this host."); return; }
  const row = el("div", {class: "row"});
  v.appendChild(row);
  const N = Math.max(n.gpus, 1), S = 380, cx = S / 2, cy = S / 2, R = S / 2 - 50;
  const at = k => ({x: cx + R * Math.cos(2 * Math.PI * k / N - Math.PI / 2), y: cy + R * Math.sin(2 * Math.PI * k / N - Math.PI / 2)});
  const g = sv("svg", {width: S, height: S, "data-kind": "gpu-graph", "data-host": host});
  const islandOf = {};
  n.islands.forEach((is, i) => is[2].forEach(k => { islandOf[k] = i; }));
  n.links.forEach(l => {
    const p = at(l[0]), q = at(l[1]), nv = /NVLINK|NVSWITCH|C2C/.test(l[2]);
    const attrs = {x1: p.x, y1: p.y, x2: q.x, y2: q.y, "data-kind": "gpu-link", "data-degraded": l[7],
      stroke: l[7] ? "var(--bad)" : (nv ? "#2b6cb0" : "#9aa3ad"),
      "stroke-width": nv ? Math.max(1, Math.min(6, (l[3] || 1) / 3)) : 1, "stroke-opacity": nv ? 0.7 : 0.5};
    if (l[7]) attrs["stroke-dasharray"] = "5 3";
    if (!nv && !l[7]) attrs["stroke-dasharray"] = "2 3";
    g.appendChild(sv("line", attrs, "gpu" + l[0] + " - gpu" + l[1] + ": " + l[2] + (l[3] !== null ? ", " + l[3] + "/" + fmt(l[4], 0) + " lanes" : "") +
      ", " + fmt(l[5], 1) + " of " + fmt(l[6], 1) + " GB/s" + (l[7] ? ", DEGRADED" : "") + (l[8] ? "\n" + l[8] : "")));
  });
  for (let k = 0; k < n.gpus; ++k) {
    const p = at(k), i = islandOf[k];
    g.appendChild(sv("circle", {cx: p.x, cy: p.y, r: 17, fill: i === undefined ? "#eee" : ISLAND_FILL[i % ISLAND_FILL.length], stroke: "#445",
      "data-kind": "gpu"}, "gpu" + k + (i === undefined ? "" : ", island " + i + " (" + n.islands[i][0] + ", " + n.islands[i][1] + ")")));
    svgText(g, p.x, p.y + 4, "gpu" + k, {"text-anchor": "middle"});
  }
  const gd = el("div");
  gd.appendChild(g);
  legend(gd, [["#2b6cb0", "NVLink / NVSwitch (width: lanes)"], ["#9aa3ad", "PCIe / system path", true], ["var(--bad)", "degraded", true]]);
  note(gd, n.islands.map((is, i) => "island " + i + ": " + is[0] + " (" + is[1] + "), gpus " + is[2].join(",")).join("; "));
  row.appendChild(gd);
  const C = Math.min(40, Math.floor(360 / N)), off = 46, H = sv("svg", {width: off + C * N + 10, height: off + C * N + 10, "data-kind": "p2p-heatmap"});
  const bw = n.links.map(l => l[5]);
  const [lo, hi] = range(bw.concat([0]));
  for (let k = 0; k < N; ++k) {
    svgText(H, off + k * C + C / 2, off - 6, k, {"text-anchor": "middle"});
    svgText(H, off - 6, off + k * C + C / 2 + 4, "gpu" + k, {"text-anchor": "end"});
    H.appendChild(sv("rect", {x: off + k * C, y: off + k * C, width: C - 1, height: C - 1, fill: "#e5e7ea"}));
  }
  n.links.forEach(l => {
    [[l[0], l[1]], [l[1], l[0]]].forEach(([i, j]) => {
      H.appendChild(sv("rect", {x: off + j * C, y: off + i * C, width: C - 1, height: C - 1, fill: heat(l[5] === null ? null : (l[5] - lo) / (hi - lo)),
        stroke: l[7] ? "var(--bad)" : "none", "stroke-width": l[7] ? 2.5 : 0, "data-kind": "p2p-cell"},
        "gpu" + i + " -> gpu" + j + ": " + fmt(l[5], 1) + " GB/s (" + l[2] + ")" + (l[7] ? ", degraded" : "")));
      if (C >= 34 && l[5] !== null) svgText(H, off + j * C + C / 2, off + i * C + C / 2 + 4, Math.round(l[5]), {"text-anchor": "middle", "font-size": 9});
    });
  });
  const hd = el("div");
  hd.appendChild(H);
  colorBar(hd, lo, hi, "GB/s measured P2P copy bandwidth (red outline: degraded)");
  row.appendChild(hd);
}
)JS";

// The time sections: clock models, DCGM / clock findings on a time axis, per-link entropy.
constexpr const char* kTime = R"JS(
const MODEL_COLOR = ["#7f7f7f", "#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b"];
// The held-out residuals over time of the hosts worst after alignment: one chart per host, one line
// per model, signed, on a symmetric log scale (sign(v) log10(1 + |v| / 1 us)).
function drawClockSeries(b, C, models) {
  const series = C.series || [];
  if (!series.length) return;
  note(b, "Held-out residuals over time (model offset minus measured offset, symmetric log scale) of the " + series.length +
       " host(s) worst after alignment; every model of each:");
  const box = el("div", {class: "charts"});
  b.appendChild(box);
  const slog = v => Math.sign(v) * Math.log10(1 + Math.abs(v));
  series.forEach(s => {
    const d = el("div", {class: "chart", "data-kind": "clock-series", "data-host": HOSTS[s.host]});
    d.appendChild(el("h4", {}, HOSTS[s.host]));
    const W = 360, H = 150, L = 52;
    let tmax = 0, ymax = 0;
    s.models.forEach(pts => pts.forEach(p => { tmax = Math.max(tmax, p[0]); if (p[1] !== null) ymax = Math.max(ymax, Math.abs(slog(p[1]))); }));
    tmax = tmax || 1; ymax = Math.max(ymax, 1);
    const X = t => L + t / tmax * (W - L - 8), Y = v => H / 2 - slog(v) / ymax * (H / 2 - 12);
    const svg = sv("svg", {width: W, height: H});
    svg.appendChild(sv("line", {x1: L, x2: W - 8, y1: H / 2, y2: H / 2, stroke: "#bbb"}));
    const top = Math.pow(10, Math.floor(ymax));
    [top, -top].forEach(v => {
      svg.appendChild(sv("line", {x1: L, x2: W - 8, y1: Y(v), y2: Y(v), stroke: "#eee"}));
      svgText(svg, L - 3, Y(v) + 4, (v > 0 ? "+" : "-") + (top >= 1000 ? (top / 1000) + " ms" : top + " us"), {"text-anchor": "end"});
    });
    svgText(svg, L - 3, H / 2 + 4, "0", {"text-anchor": "end"});
    svgText(svg, W - 8, H - 2, fmt(tmax, 0) + " s", {"text-anchor": "end"});
    s.models.forEach((pts, k) => {
      const p = pts.filter(x => x[1] !== null).sort((x, y) => x[0] - y[0]);
      if (!p.length) return;
      svg.appendChild(sv("polyline", {points: p.map(x => X(x[0]).toFixed(1) + "," + Y(x[1]).toFixed(1)).join(" "), fill: "none",
        stroke: MODEL_COLOR[k % MODEL_COLOR.length], "stroke-width": 1.5}, models[k]));
    });
    d.appendChild(svg);
    box.appendChild(d);
  });
}
function drawClocks() {
  const C = D.clocks, b = bodyOf("clocks"), models = C.models || [], rows = C.hosts || [];
  if (!rows.length) { note(b, "No clock sync records (chrony, linuxptp, sync CSV) in the inputs."); return; }
  const W = 640, H = 260, L = 50, B = 30;
  const all = [];
  rows.forEach(r => r[2].forEach(v => { if (v !== null && v > 0) all.push(v); }));
  if (all.length) {
    const lo = Math.log10(Math.min.apply(null, all)), hi = Math.max(lo + 1, Math.log10(Math.max.apply(null, all)));
    const svg = sv("svg", {width: W, height: H, "data-kind": "clock-cdf"});
    const X = v => L + (Math.log10(v) - lo) / (hi - lo) * (W - L - 10), Y = f => H - B - f * (H - B - 10);
    svg.appendChild(sv("line", {x1: L, y1: H - B, x2: W - 10, y2: H - B, stroke: "#999"}));
    svg.appendChild(sv("line", {x1: L, y1: 10, x2: L, y2: H - B, stroke: "#999"}));
    for (let e = Math.ceil(lo); e <= Math.floor(hi); ++e) svgText(svg, X(Math.pow(10, e)), H - B + 14, Math.pow(10, e) + " us", {"text-anchor": "middle"});
    svgText(svg, 4, 14, "hosts");
    [0, 0.5, 1].forEach(f => svgText(svg, L - 4, Y(f) + 4, Math.round(f * 100) + "%", {"text-anchor": "end"}));
    models.forEach((m, k) => {
      const v = rows.map(r => r[2][k]).filter(x => x !== null && x > 0).sort((x, y) => x - y);
      if (!v.length) return;
      const pts = v.map((x, i) => X(x) + "," + Y((i + 1) / v.length)).join(" ");
      svg.appendChild(sv("polyline", {points: X(v[0]) + "," + Y(0) + " " + pts, fill: "none", stroke: MODEL_COLOR[k % MODEL_COLOR.length], "stroke-width": 2}, m));
    });
    b.appendChild(svg);
    legend(b, models.map((m, k) => [MODEL_COLOR[k % MODEL_COLOR.length], m]));
    note(b, "Share of hosts whose held-out sync residual (mean |offset error|) is below x, per clock model: 'none' is before alignment, the best model after.");
  }
  drawClockSeries(b, C, models);
  b.appendChild(table(["model", "hosts with residuals", "median mean us", "median p99 us", "best on hosts"], models.map((m, k) => [
    m, rows.filter(r => r[2][k] !== null).length, fmt(median(rows.map(r => r[2][k])), 3), fmt(median(rows.map(r => r[3][k])), 3),
    rows.filter(r => r[1] === k).length])));
  const best = rows.filter(r => r[1] >= 0 && r[2][r[1]] !== null).sort((x, y) => y[2][y[1]] - x[2][x[1]]).slice(0, 10);
  if (best.length) {
    note(b, "Hosts with the largest residual after alignment:");
    b.appendChild(table(["host", "best model", "steps"].concat(models.map(m => m + " mean / p99 us")), best.map(r =>
      [hostLink(HOSTS[r[0]]), models[r[1]], r[4]].concat(models.map((m, k) => fmt(r[2][k], 2) + " / " + fmt(r[3][k], 2))))));
  }
  if ((C.servo || []).length) {
    note(b, "PTP servos (ptp4l / phc2sys):");
    b.appendChild(table(["host", "program", "offset rms ns", "offset max ns", "locked", "samples"],
      C.servo.slice(0, 50).map(s => [s.host, s.program, s.offset_rms_ns, s.offset_max_ns, s.locked, s.points])));
  }
}
function drawFindings() {
  const F = D.findings, b = bodyOf("findings"), fs = F.findings || [];
  if (!fs.length) note(b, "No DCGM, clock or servo finding.");
  const timed = fs.filter(f => f.t0 !== null), untimed = fs.filter(f => f.t0 === null);
  if (timed.length) {
    const kinds = Array.from(new Set(timed.map(f => f.kind))).sort();
    const tmax = Math.max.apply(null, timed.map(f => f.t1 === null ? f.t0 : f.t1)) || 1;
    const W = 1000, L = 170, lane = 26, H = kinds.length * lane + 40;
    const svg = sv("svg", {width: W, height: H, "data-kind": "findings-axis"});
    const X = t => L + t / tmax * (W - L - 20);
    kinds.forEach((k, i) => {
      svgText(svg, L - 6, 20 + i * lane + 14, k, {"text-anchor": "end"});
      svg.appendChild(sv("line", {x1: L, y1: 20 + i * lane + lane - 2, x2: W - 20, y2: 20 + i * lane + lane - 2, stroke: "#eee"}));
    });
    for (let k = 0; k <= 5; ++k) {
      const t = tmax * k / 5;
      svg.appendChild(sv("line", {x1: X(t), y1: 14, x2: X(t), y2: H - 22, stroke: "#eee"}));
      svgText(svg, X(t), H - 8, fmt(t, 1) + " s", {"text-anchor": "middle"});
    }
    timed.forEach(f => {
      const i = kinds.indexOf(f.kind), x0 = X(f.t0), x1 = Math.max(x0 + 4, X(f.t1 === null ? f.t0 : f.t1));
      svg.appendChild(sv("rect", {x: x0, y: 20 + i * lane + 4, width: x1 - x0, height: lane - 10, rx: 2, fill: heat(0.65 + 0.35 * (f.confidence || 0)),
        "data-kind": "finding", "data-host": f.host}, f.kind + " on " + f.host + (f.gpu >= 0 ? "/gpu" + f.gpu : "") + (f.link >= 0 ? " link " + f.link : "") +
        ", " + fmt(f.t0, 3) + " .. " + fmt(f.t1, 3) + " s, confidence " + fmt(f.confidence, 3) + "\n" + f.evidence));
    });
    b.appendChild(svg);
    note(b, "Seconds from the first timed finding; colour: confidence.");
  }
  if (untimed.length) {
    note(b, untimed.length + " finding(s) without a time:");
    const ul = el("ul");
    untimed.forEach(f => ul.appendChild(el("li", {"data-kind": "finding", "data-host": f.host},
      f.kind + " on " + f.host + (f.gpu >= 0 ? "/gpu" + f.gpu : "") + ": " + f.evidence)));
    b.appendChild(ul);
  }
  if (F.total > fs.length) note(b, fs.length + " of " + F.total + " findings shown.");
  if (fs.length) {
    const d = el("div", {class: "scroll"});
    d.appendChild(table(["kind", "host", "gpu", "link", "from s", "to s", "confidence", "evidence"],
      fs.map(f => [f.kind, f.host, f.gpu >= 0 ? f.gpu : null, f.link >= 0 ? f.link : null, f.t0, f.t1, f.confidence, f.evidence])));
    b.appendChild(d);
  }
  if ((F.dcgm_fields || []).length) {
    const slow = F.dcgm_fields.filter(f => !f[5]).length;
    const det = el("details");
    det.appendChild(el("summary", {}, F.dcgm_fields.length + " DCGM field(s) seen, " + slow + " sampled slower than they need; " +
                                      F.sampling_warnings + " sampling warning(s)"));
    b.appendChild(det);
    det.appendChild(table(["field", "class", "series", "worst period ms", "needed ms", "ok"],
      F.dcgm_fields.map(f => [f[0], f[1], f[2], f[3], f[4], f[5] ? "yes" : "too slow"]), {rowAttrs: i => F.dcgm_fields[i][5] ? {} : {class: "bad"}}));
  }
}
function drawEntropy() {
  const E = D.entropy, b = bodyOf("entropy"), series = E.series || [];
  if (!series.length) { note(b, "No per-link entropy series (no RoCE capture in the inputs)."); return; }
  const th = E.thresholds;
  note(b, "Watched estimator " + E.estimator + " (blue), " + E.shown_estimator + " beside it (grey); window " + fmt(E.window_ns / 1e6, 3) +
       " ms; " + series.length + " of " + E.links_total + " links shown (links with decisions first, then the widest swing). " +
       (E.scheduled ? E.decisions_total + " scheduler decision(s)." : "No schedule in this result (toposcope schedule adds it): thresholds are the scheduler's defaults."));
  legend(b, [["#1f77b4", E.estimator], ["#9aa3ad", E.shown_estimator], ["var(--bad)", "hot " + th.hot_bits + " bit (move off)", true],
             ["var(--accent)", "cool " + th.cool_bits + " bit (merge)", true], ["#555", "seed's deterministic line " + th.seed_deterministic_bits + " bit", true],
             ["var(--flap)", "decision"]]);
  const box = el("div", {class: "charts"});
  b.appendChild(box);
  const W = 360, H = 130, L = 30;
  let tmax = 0;
  series.forEach(s => s.points.forEach(p => { tmax = Math.max(tmax, p[0]); }));
  tmax = tmax || 1;
  series.forEach(s => {
    let ymax = Math.max(th.hot_bits + 0.5, th.seed_deterministic_bits + 0.5);
    s.points.forEach(p => { if (p[1] !== null) ymax = Math.max(ymax, p[1]); if (p[2] !== null) ymax = Math.max(ymax, p[2]); });
    const X = t => L + t / tmax * (W - L - 8), Y = v => H - 16 - v / ymax * (H - 24);
    const d = el("div", {class: "chart", "data-kind": "entropy-series", "data-link": s.link});
    d.appendChild(el("h4", {}, s.link + " (" + s.windows + " windows)"));
    const svg = sv("svg", {width: W, height: H});
    [[th.hot_bits, "var(--bad)", "4 3"], [th.cool_bits, "var(--accent)", "4 3"], [th.seed_deterministic_bits, "#555", "1 3"]].forEach(([v, c, da]) =>
      svg.appendChild(sv("line", {x1: L, x2: W - 8, y1: Y(v), y2: Y(v), stroke: c, "stroke-dasharray": da})));
    [0, Math.round(ymax)].forEach(v => svgText(svg, L - 3, Y(v) + 4, v, {"text-anchor": "end"}));
    svgText(svg, W - 8, H - 3, fmt(tmax, 2) + " s", {"text-anchor": "end"});
    [[2, "#9aa3ad"], [1, "#1f77b4"]].forEach(([k, c]) => {
      let path = "", pen = false;
      s.points.forEach(p => {
        if (p[k] === null) { pen = false; return; }
        path += (pen ? "L" : "M") + X(p[0]).toFixed(1) + " " + Y(p[k]).toFixed(1);
        pen = true;
      });
      if (path) svg.appendChild(sv("path", {d: path, fill: "none", stroke: c, "stroke-width": k === 1 ? 1.6 : 1}));
    });
    (E.decisions || []).filter(x => x.link === s.link).forEach(x => {
      svg.appendChild(sv("line", {x1: X(x.t), x2: X(x.t), y1: 6, y2: H - 16, stroke: "var(--flap)", "stroke-width": 2, "data-kind": "decision"},
        x.action + " at " + fmt(x.t, 3) + " s"));
      svgText(svg, X(x.t) + 2, 14, x.action);
    });
    d.appendChild(svg);
    box.appendChild(d);
  });
}
)JS";

// The hypothesis tree, the input accounting, the search box and the driver.
constexpr const char* kTreeAndDriver = R"JS(
function drawHypotheses() {
  const Hy = D.hypotheses, b = bodyOf("hypotheses"), ss = Hy.symptoms || [];
  note(b, ss.length ? ("Highest fault probability " + fmt(Hy.max_fault_probability, 3) + "; " + Hy.total + " symptom(s)" +
       (Hy.total > ss.length ? ", first " + ss.length + " shown" : "") + (Hy.skipped ? "; " + Hy.skipped + " finding(s) left out" : "") + ".")
       : "No symptom: no finding to explain.");
  const filter = el("input", {type: "search", placeholder: "filter symptoms (kind, entity)"});
  if (ss.length > 10) b.appendChild(filter);
  const list = el("div");
  b.appendChild(list);
  const items = ss.map((s, i) => {
    const top = s.hypotheses[0] || {kind: "-", p: 0};
    const d = el("details", {"data-kind": "symptom", "data-entity": s.entity});
    const sm = el("summary");
    sm.appendChild(el("b", {}, s.kind + " "));
    sm.appendChild(document.createTextNode(s.entity + " : " + top.kind + " "));
    const bar = el("span", {class: "bar" + (top.kind !== "noise" ? " fault" : "")});
    bar.style.width = Math.round(80 * (top.p || 0)) + "px";
    sm.appendChild(bar);
    sm.appendChild(document.createTextNode(fmt(top.p, 3)));
    d.appendChild(sm);
    // The hypotheses are drawn when the symptom is first opened (hundreds of symptoms stay light).
    let drawn = false;
    const fill = () => {
      if (drawn) return;
      drawn = true;
      d.appendChild(el("div", {class: "note"}, s.summary));
      s.hypotheses.forEach(h => {
        const hd = el("div", {class: "hyp", "data-kind": "hypothesis"});
        const t = el("div");
        t.appendChild(el("b", {}, h.kind));
        t.appendChild(document.createTextNode(" on " + h.entity + " "));
        const hb = el("span", {class: "bar" + (h.kind !== "noise" ? " fault" : "")});
        hb.style.width = Math.round(80 * (h.p || 0)) + "px";
        t.appendChild(hb);
        t.appendChild(document.createTextNode("p = " + fmt(h.p, 4) + " (prior " + fmt(h.prior, 3) + ")"));
        hd.appendChild(t);
        h.for.forEach(x => hd.appendChild(el("div", {class: "for"}, "+ " + x)));
        h.against.forEach(x => hd.appendChild(el("div", {class: "against"}, "- " + x)));
        if (h.next) hd.appendChild(el("div", {class: "note"}, "next: " + h.next));
        d.appendChild(hd);
      });
    };
    if (i < 3) { d.open = true; fill(); }
    d.addEventListener("toggle", fill);
    list.appendChild(d);
    return [d, (s.kind + " " + s.entity + " " + top.kind).toLowerCase()];
  });
  filter.addEventListener("input", () => {
    const q = filter.value.toLowerCase();
    items.forEach(([d, key]) => { d.style.display = key.indexOf(q) >= 0 ? "" : "none"; });
  });
}
function drawInputs() {
  const I = D.inputs, b = bodyOf("inputs");
  const tot = (I.formats || []).reduce((a, f) => [a[0] + f.files, a[1] + f.read, a[2] + f.rejected, a[3] + f.skipped], [0, 0, 0, 0]);
  note(b, tot[0] + " file(s): " + tot[1] + " record(s) read, " + (tot[1] - tot[2]) + " accepted, " + tot[2] + " rejected; " + tot[3] +
       " file(s) skipped; " + I.warnings + " warning(s).");
  b.appendChild(table(["format", "files", "read", "accepted", "rejected", "skipped files"],
    (I.formats || []).map(f => [f.format, f.files, f.read, f.read - f.rejected, f.rejected, f.skipped]),
    {rowAttrs: i => (I.formats[i].rejected || I.formats[i].skipped) ? {class: "bad"} : {}}));
  const files = I.files || [];
  if (I.files_total > files.length) note(b, files.length + " of " + I.files_total + " files kept in this report (skipped and rejecting files first).");
  const filter = el("input", {type: "search", placeholder: "filter files (path, format, host)"});
  b.appendChild(filter);
  const status = el("p", {class: "note"});
  b.appendChild(status);
  const more = el("button", {class: "pick"}, "show every file");
  b.appendChild(more);
  const d = el("div", {class: "scroll"});
  b.appendChild(d);
  const FIRST = 100;
  let all = false;
  // The table of the files matching the filter: the first 100 until "show every file".
  function refresh() {
    const q = filter.value.toLowerCase();
    const match = files.filter(f => (f.path + " " + f.format + " " + f.host).toLowerCase().indexOf(q) >= 0);
    const shown = all ? match : match.slice(0, FIRST);
    status.textContent = shown.length + " of " + match.length + " file(s) shown" + (q ? " matching '" + filter.value + "'" : "") + ".";
    more.style.display = shown.length < match.length ? "" : "none";
    d.textContent = "";
    d.appendChild(table(["file", "format", "host", "read", "accepted", "rejected", "first diagnostics / why skipped"], shown.map(f => {
      const diag = el("div");
      if (f.skipped) diag.appendChild(el("div", {}, "skipped: " + f.reason));
      f.diagnostics.forEach(x => diag.appendChild(el("div", {}, x)));
      return [f.path, f.format, f.host, f.read, f.read - f.rejected, f.rejected, diag];
    }), {rowAttrs: i => Object.assign({"data-kind": "input-file"}, (shown[i].rejected || shown[i].skipped) ? {class: "bad"} : {})}));
  }
  filter.addEventListener("input", refresh);
  more.addEventListener("click", () => { all = true; refresh(); });
  refresh();
}
function drawSummary() {
  const c = D.counts, b = bodyOf("summary"), cards = el("div", {class: "cards"});
  [["hosts", c.hosts], ["GPUs", c.gpus], ["GPU links", c.gpu_links], ["degraded GPU links", c.degraded_links, c.degraded_links > 0],
   ["islands", c.islands], ["DCGM / clock findings", c.findings, c.findings > 0], ["symptoms", c.symptoms, c.symptoms > 0],
   ["input files", c.files], ["records rejected", c.rejected, c.rejected > 0],
   ["architecture", (c.architecture || "-") + (c.architecture_confidence !== null && c.architecture_confidence !== undefined ? " (" + fmt(c.architecture_confidence, 2) + ")" : "")]
  ].forEach(([label, value, bad]) => {
    const d = el("div", {class: "card" + (bad ? " bad" : "")});
    d.appendChild(el("b", {}, value));
    d.appendChild(el("span", {}, label));
    cards.appendChild(d);
  });
  b.appendChild(cards);
}
function selectHost(name, scroll) {
  document.querySelectorAll(".hit").forEach(e => e.classList.remove("hit"));
  if (HOSTS.indexOf(name) < 0) return false;
  document.querySelectorAll("[data-host]").forEach(e => { if (e.getAttribute("data-host") === name) e.classList.add("hit"); });
  drawNode(name);
  selectNetHost(name);
  if (scroll) document.getElementById("node-view").scrollIntoView();
  return true;
}
function setupSearch() {
  const input = document.getElementById("search"), list = document.getElementById("host-names");
  if (HOSTS.length <= 5000) HOSTS.forEach(h => list.appendChild(el("option", {value: h})));
  const status = document.getElementById("search-status");
  input.addEventListener("change", () => {
    const q = input.value.trim();
    if (!q) return;
    let name = HOSTS.indexOf(q) >= 0 ? q : HOSTS.find(h => h.indexOf(q) >= 0);
    status.textContent = name && selectHost(name, true) ? "" : "no host matches '" + q + "'";
  });
}
const SECTION_MS = {};
function run(name, f) {
  const t = performance.now();
  try { f(); } catch (e) { reportError(name + ": " + (e && e.stack ? e.stack : e)); }
  SECTION_MS[name] = Math.round(performance.now() - t);
}
run("summary", drawSummary);
run("fabric", drawFabric);
run("nodes", drawNodesOverview);
run("rings", drawRings);
run("traffic", drawTraffic);
run("nics", drawNics);
run("patterns", drawPatterns);
run("clocks", drawClocks);
run("findings", drawFindings);
run("entropy", drawEntropy);
run("hypotheses", drawHypotheses);
run("inputs", drawInputs);
run("search", setupSearch);
// data-render-ms: the drawing alone; data-open-ms: from the start of navigation to the page drawn.
document.body.setAttribute("data-render-ms", (performance.now() - T_START).toFixed(1));
document.body.setAttribute("data-open-ms", performance.now().toFixed(1));
document.body.setAttribute("data-section-ms", JSON.stringify(SECTION_MS));
document.body.setAttribute("data-rendered", "1");
window.addEventListener("load", () => document.body.setAttribute("data-load-ms", performance.now().toFixed(1)));
)JS";

}  // namespace

const std::string& ReportScript() {
  static const std::string kScript = std::string(kHelpers) + kFabric + kNodes + kTime + ReportScriptNetPart() + kTreeAndDriver;
  return kScript;
}

}  // namespace toposcope::report::html
