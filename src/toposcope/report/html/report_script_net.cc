// report/html/report_script_net: the part of the HTML report's JavaScript that draws the network
// sections (see report_assets.h): the traffic matrices (RDMA bytes host to host or leaf to leaf as a
// heatmap; one NVSwitch host's NVLink GPU-pair matrix), the NIC ports and the QP pattern classes.
// Drawn items carry data-kind (traffic-cell, nvlink-host, nvlink-cell, nic-port, nic-finding,
// qp-pattern) for tests. Uses the helpers of report_script.cc (el, sv, table, heat, ...).
#include <string>

#include "toposcope/report/html/report_assets.h"

namespace toposcope::report::html {

namespace {

// Helpers and the traffic matrices (RDMA flows, NVLink GPU pairs).
constexpr const char* kMatrices = R"JS(
function fmtBytes(x) {
  if (x === null || x === undefined || !isFinite(x)) return "-";
  const u = ["B", "kB", "MB", "GB", "TB", "PB"];
  let k = 0;
  while (Math.abs(x) >= 1000 && k < u.length - 1) { x /= 1000; ++k; }
  return (k ? x.toFixed(x < 10 ? 2 : (x < 100 ? 1 : 0)) : String(Math.round(x))) + " " + u[k];
}
// A table with a filter box: the first `first` matching rows until "show every ...". o: {headers,
// rows, keys (lower-case text per row), attrs(i), placeholder, noun, first}. Returns {set(q)}.
function filteredTable(parent, o) {
  const first = o.first || 100;
  const filter = el("input", {type: "search", placeholder: o.placeholder});
  if (o.rows.length > 10) parent.appendChild(filter);
  const status = el("p", {class: "note"}), more = el("button", {class: "pick"}, "show every " + o.noun);
  parent.appendChild(status);
  parent.appendChild(more);
  const d = el("div", {class: "scroll"});
  parent.appendChild(d);
  let all = false;
  function refresh() {
    const q = filter.value.trim().toLowerCase();
    const match = [];
    o.rows.forEach((r, i) => { if (!q || o.keys[i].indexOf(q) >= 0) match.push(i); });
    const shown = all ? match : match.slice(0, first);
    status.textContent = shown.length + " of " + match.length + " " + o.noun + "(s) shown" + (q ? " matching '" + q + "'" : "") + ".";
    more.style.display = shown.length < match.length ? "" : "none";
    d.textContent = "";
    d.appendChild(table(o.headers, shown.map(i => o.rows[i]), {rowAttrs: k => o.attrs(shown[k])}));
  }
  filter.addEventListener("input", refresh);
  more.addEventListener("click", () => { all = true; refresh(); });
  refresh();
  return {set: q => { filter.value = q; refresh(); }};
}
// The colour scale of a log10 axis, its ends in bytes.
function logBar(parent, lo, hi) {
  const d = el("div", {class: "legend"}), s = el("span");
  for (let k = 0; k <= 5; ++k) {
    const sw = el("span", {class: "swatch"});
    sw.style.background = heat(k / 5);
    s.appendChild(sw);
  }
  s.appendChild(document.createTextNode(" " + fmtBytes(Math.pow(10, lo)) + " .. " + fmtBytes(Math.pow(10, hi)) + " per cell (log scale)"));
  d.appendChild(s);
  parent.appendChild(d);
}
function maybeHostLink(name) { return HOSTS.indexOf(name) >= 0 ? hostLink(name) : name; }
// The RDMA flow matrix: rows send, columns receive; colour: log of the bytes.
let FLOW_MARK = null;
function drawFlowMatrix(b, F) {
  const names = F.names || [], cells = F.cells || [], byLeaf = F.by === "leaf";
  b.appendChild(el("h3", {}, byLeaf ? "RDMA bytes, leaf to leaf" : "RDMA bytes, host to host"));
  if (!cells.length) {
    note(b, "No RDMA flow between known hosts (no RoCE capture in the inputs, or no address mapped to a host)." +
         (F.flows_total ? " " + F.flows_total + " flow(s), " + F.flows_unattributed + " without a host." : ""));
    return;
  }
  const N = names.length, C = Math.max(3, Math.min(28, Math.floor(760 / N))), labels = C >= 8;
  const L = labels ? 150 : 10, top = labels ? 110 : 10;
  const svg = sv("svg", {width: L + N * C + 10, height: top + N * C + 10, "data-kind": "traffic-matrix", "data-by": F.by});
  const logs = cells.map(c => c[2] > 0 ? Math.log10(c[2]) : null), [lo, hi] = range(logs);
  if (labels) names.forEach((n, k) => {
    const s = n.length > 22 ? n.slice(0, 21) + "~" : n;
    svgText(svg, L - 4, top + k * C + C / 2 + 4, s, {"text-anchor": "end"});
    svgText(svg, L + k * C + C / 2 + 4, top - 4, s, {transform: "rotate(-60 " + (L + k * C + C / 2 + 4) + " " + (top - 4) + ")"});
  });
  svg.appendChild(sv("rect", {x: L, y: top, width: N * C, height: N * C, fill: "#f4f6f8", stroke: "#ccd"}));
  cells.forEach((c, k) => {
    svg.appendChild(sv("rect", {x: L + c[1] * C, y: top + c[0] * C, width: C - 1, height: C - 1, fill: heat(logs[k] === null ? null : (logs[k] - lo) / (hi - lo)),
      "data-kind": "traffic-cell", "data-src": names[c[0]], "data-dst": names[c[1]]},
      names[c[0]] + " -> " + names[c[1]] + ": " + fmtBytes(c[2]) + " in " + c[3] + " flow(s)" + (c[4] !== null ? ", " + fmt(c[4], 3) + " Gbit/s over their span" : "")));
  });
  const mark = sv("g");
  svg.appendChild(mark);
  b.appendChild(svg);
  logBar(b, lo, hi);
  note(b, cells.length + " " + (byLeaf ? "leaf pair(s)" : "host pair(s)") + " with traffic; " + fmtBytes(F.bytes_total) + " in " + F.flows_total +
       " flow(s)" + (F.flows_unattributed ? ", " + F.flows_unattributed + " flow(s) without a host left out" : "") +
       (byLeaf ? "; " + F.hosts + " hosts send or receive, so the rows are their leaves (or name groups)" : "") + ". Rows send, columns receive.");
  const heavy = cells.slice().sort((x, y) => y[2] - x[2]).slice(0, 10);
  b.appendChild(table([byLeaf ? "from leaf" : "from host", byLeaf ? "to leaf" : "to host", "bytes", "flows", "Gbit/s over their span"],
    heavy.map(c => [byLeaf ? names[c[0]] : maybeHostLink(names[c[0]]), byLeaf ? names[c[1]] : maybeHostLink(names[c[1]]), fmtBytes(c[2]), c[3], c[4]])));
  // The searched host's row and column outlined (its leaf's on a per-leaf matrix).
  const leafOf = {};
  (D.fabric.leaves || []).forEach(l => l.hosts.forEach(h => { leafOf[HOSTS[h]] = l.name; }));
  FLOW_MARK = host => {
    mark.textContent = "";
    let k = names.indexOf(byLeaf ? leafOf[host] : host);
    if (k < 0 && byLeaf) k = names.indexOf("other hosts");
    if (k < 0) return;
    mark.appendChild(sv("rect", {x: L, y: top + k * C, width: N * C, height: C, fill: "none", stroke: "#000", "stroke-width": 2}));
    mark.appendChild(sv("rect", {x: L + k * C, y: top, width: C, height: N * C, fill: "none", stroke: "#000", "stroke-width": 2}));
  };
}
function drawNvlink(b, V) {
  b.appendChild(el("h3", {}, "NVLink traffic between the GPUs of a host"));
  const rows = V.hosts || [];
  if (!rows.length) { note(b, "No NVLink traffic matrix (it needs DCGM's NVLink byte counters and an NCCL log of NVSwitch hosts)."); return; }
  note(b, V.estimable + " of " + rows.length + " host(s) estimable" + (V.comm ? " (comm " + V.comm + ", " + V.channels + " channel(s))" : "") +
       "; " + Object.keys(V.matrices || {}).length + " host matrix(es) kept. " + (V.notes || []).join(" "));
  if (V.method) { const det = el("details"); det.appendChild(el("summary", {}, "method")); det.appendChild(el("div", {class: "note"}, V.method)); b.appendChild(det); }
  b.appendChild(el("div", {id: "nvlink-view"}));
  filteredTable(b, {headers: ["host", "GPUs", "NVLink tx, all GPUs", "confidence", "samples", "window s", "matrix"],
    rows: rows.map(r => [maybeHostLink(r[0]), r[2], r[1] ? fmtBytes(r[3]) + "/s" : null, r[1] ? r[4] : null, r[1] ? r[5] : null, r[1] ? r[6] : null,
                         r[1] ? ((V.matrices || {})[r[0]] ? "kept" : "left out (too many hosts)") : (V.reasons[r[7]] || "")]),
    keys: rows.map(r => (r[0] + " " + (r[1] ? "" : V.reasons[r[7]] || "")).toLowerCase()),
    attrs: i => Object.assign({"data-kind": "nvlink-host", "data-host": rows[i][0]}, rows[i][1] ? {} : {class: "muted"}),
    placeholder: "filter hosts (name, reason)", noun: "host"});
  const first = rows.find(r => (V.matrices || {})[r[0]]);
  if (first) drawNvlinkHost(first[0]);
}
// One host's GPU-pair matrix: rows send, columns receive; pairs on no ring edge (bounded only by the
// counters) hatched grey.
function drawNvlinkHost(host) {
  const v = document.getElementById("nvlink-view");
  if (!v) return;
  const V = D.traffic.nvlink, m = (V.matrices || {})[host];
  v.textContent = "";
  v.appendChild(el("h4", {"data-matrix-host": host}, host));
  if (!m) {
    const r = (V.hosts || []).find(x => x[0] === host);
    note(v, !r ? "No NVLink traffic estimate for this host." : (r[1] ? "This host's matrix was left out (too many hosts)." : "Not estimable: " + V.reasons[r[7]]));
    return;
  }
  const N = Math.max(m.gpus, 1), C = Math.min(44, Math.floor(400 / N)), off = 46;
  const svg = sv("svg", {width: off + C * N + 10, height: off + C * N + 10, "data-kind": "nvlink-matrix"});
  const [lo, hi] = range(m.pairs.map(p => p[2]).concat([0]));
  for (let k = 0; k < N; ++k) {
    svgText(svg, off + k * C + C / 2, off - 6, k, {"text-anchor": "middle"});
    svgText(svg, off - 6, off + k * C + C / 2 + 4, "gpu" + k, {"text-anchor": "end"});
    svg.appendChild(sv("rect", {x: off + k * C, y: off + k * C, width: C - 1, height: C - 1, fill: "#e5e7ea"}));
  }
  m.pairs.forEach(p => {
    svg.appendChild(sv("rect", {x: off + p[1] * C, y: off + p[0] * C, width: C - 1, height: C - 1,
      fill: p[4] ? heat(p[2] === null ? null : (p[2] - lo) / (hi - lo)) : "#eef0f3", stroke: p[4] ? "none" : "#b8bec6",
      "stroke-dasharray": p[4] ? "" : "2 2", "data-kind": "nvlink-cell", "data-supported": p[4]},
      "gpu" + p[0] + " -> gpu" + p[1] + ": " + fmtBytes(p[2]) + "/s +- " + fmtBytes(p[3]) + "/s" + (p[4] ? "" : " (on no ring edge: bounded by the counters only)")));
    const t = p[2] === null ? 0.5 : (p[2] - lo) / (hi - lo);
    if (C >= 34 && p[4]) svgText(svg, off + p[1] * C + C / 2, off + p[0] * C + C / 2 + 4, fmt(p[2] / 1e9, 2),
      {"text-anchor": "middle", "font-size": 9, style: t < 0.2 || t > 0.8 ? "fill: #fff" : ""});
  });
  v.appendChild(svg);
  colorBar(v, lo / 1e9, hi / 1e9, "GB/s");
  note(v, "Rows send, columns receive; the numbers are GB/s; dashed grey: a pair on no ring edge (the counters only bound it).");
}
function drawTraffic() {
  const T = D.traffic || {}, b = bodyOf("traffic");
  drawFlowMatrix(b, T.flows || {});
  drawNvlink(b, T.nvlink || {});
}
)JS";

// The NIC ports, the QP patterns and the searched host in these sections.
constexpr const char* kTables = R"JS(
function drawNics() {
  const N = D.nics || {}, b = bodyOf("nics"), ports = N.ports || [];
  if (!N.total) { note(b, "No NIC port facts (no ibstat, ibv_devinfo, show_gids or rdma res show qp output in the inputs)."); return; }
  note(b, N.total + " port(s) on " + N.hosts + " host(s); " + N.findings_total + " finding(s)" +
       (N.total > ports.length ? "; the first " + ports.length + " ports kept (ports with findings and ports not active first)" : "") + ".");
  b.appendChild(table(["model", "link layer", "rate Gb/s", "state", "ports"], (N.summary || []).map(s => [s[0], s[1], s[2], s[3], s[4]])));
  if ((N.findings || []).length) {
    b.appendChild(table(["finding", "host", "device", "port", "evidence"], N.findings.map(f => [f[0], maybeHostLink(f[1]), f[2], f[3], f[4]]),
      {rowAttrs: i => ({"data-kind": "nic-finding", "data-host": N.findings[i][1], class: "bad"})}));
  }
  filteredTable(b, {headers: ["host", "device", "port", "state", "physical state", "rate Gb/s", "link layer", "model", "firmware",
                                          "GIDs", "QPs", "from", "finding"],
    rows: ports.map(p => {
      const gids = el("div");  // one GID a line
      (p[9] ? p[9].split("; ") : []).forEach(g => gids.appendChild(el("div", {}, g)));
      return [maybeHostLink(p[0])].concat(p.slice(1, 9), [gids], p.slice(10));
    }),
    keys: ports.map(p => [p[0], p[1], p[3], p[6], p[7], p[12]].join(" ").toLowerCase()),
    attrs: i => Object.assign({"data-kind": "nic-port", "data-host": ports[i][0]}, ports[i][12] ? {class: "bad"} : {}),
    placeholder: "filter ports (host, device, state, model)", noun: "port"});
}
const PATTERN_COLOR = {allreduce: "#1f77b4", pipeline: "#2ca02c", mixed: "#ff7f0e", unknown: "#9aa3ad"};
function drawPatterns() {
  const P = D.patterns || {}, b = bodyOf("patterns"), rows = P.rows || [];
  if (!P.total) { note(b, "No QP state log in the inputs: no QP pattern."); return; }
  const cls = P.classes || {};
  legend(b, Object.keys(cls).sort().map(k => [PATTERN_COLOR[k] || "#555", k + ": " + cls[k] + " scope(s)"]));
  note(b, P.records + " QP state record(s) in " + P.windows + " window(s), " + P.illegal_transitions + " illegal transition(s). " + (P.note ? P.note.replace(/\.?$/, ".") : "") +
       (P.total > rows.length ? " First " + rows.length + " of " + P.total + " scopes kept." : "") + " Hover a row for its evidence.");
  filteredTable(b, {headers: ["scope", "class", "QPs", "windows", "AllReduce share", "pipeline share", "median batch sync", "state entropy bits",
                              "reset density", "seed's class"],
    rows: rows.map(r => {
      const c = el("span");
      const i = el("i", {class: "swatch"});
      i.style.background = PATTERN_COLOR[r[1]] || "#555";
      c.appendChild(i);
      c.appendChild(document.createTextNode(r[1]));
      return [r[0].indexOf("host:") === 0 ? maybeHostLink(r[0].slice(5)) : r[0], c].concat(r.slice(2, 10));
    }),
    keys: rows.map(r => (r[0] + " " + r[1]).toLowerCase()),
    attrs: i => Object.assign({"data-kind": "qp-pattern", title: rows[i][10]}, rows[i][0].indexOf("host:") === 0 ? {"data-host": rows[i][0].slice(5)} : {}),
    placeholder: "filter scopes (job, host, class)", noun: "scope"});
}
// A searched host in the network sections: its row and column in the flow matrix, its NVLink matrix.
function selectNetHost(name) {
  if (FLOW_MARK) FLOW_MARK(name);
  drawNvlinkHost(name);
}
)JS";

}  // namespace

const std::string& ReportScriptNetPart() {
  static const std::string kScript = std::string(kMatrices) + kTables;
  return kScript;
}

}  // namespace toposcope::report::html
