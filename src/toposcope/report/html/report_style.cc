// report/html/report_style: the CSS of the HTML report (see report_assets.h).
#include "toposcope/report/html/report_assets.h"

namespace toposcope::report::html {

const std::string& ReportStyle() {
  static const std::string kStyle = R"CSS(
:root { --fg: #1d2430; --muted: #5b6675; --line: #d8dde4; --bg: #ffffff; --panel: #f5f7fa;
        --bad: #d62728; --warn: #ff7f0e; --flap: #9467bd; --ok: #2ca02c; --accent: #1f77b4; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
header { position: sticky; top: 0; z-index: 5; background: #fff; border-bottom: 1px solid var(--line); padding: 8px 16px;
         display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: center; }
header h1 { font-size: 18px; margin: 0; }
header nav a { margin-right: 10px; color: var(--accent); text-decoration: none; font-size: 13px; }
header input { padding: 4px 8px; font-size: 13px; width: 220px; }
main { padding: 0 16px 40px; max-width: 1400px; }
section { border-bottom: 1px solid var(--line); padding: 12px 0 20px; }
section h2 { font-size: 17px; margin: 4px 0; }
p.blurb { color: var(--muted); margin: 2px 0 10px; max-width: 1000px; }
pre#errors { background: #fee; color: var(--bad); padding: 8px; margin: 8px 16px; white-space: pre-wrap; }
pre#errors:empty { display: none; }
.cards { display: flex; flex-wrap: wrap; gap: 8px; }
.card { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 6px 12px; min-width: 110px; }
.card b { display: block; font-size: 20px; }
.card span { color: var(--muted); font-size: 12px; }
.card.bad b { color: var(--bad); }
table { border-collapse: collapse; margin: 6px 0 10px; font-size: 13px; }
th, td { border: 1px solid var(--line); padding: 3px 7px; text-align: left; vertical-align: top; }
th { background: var(--panel); font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.bad td { background: #fff1f0; }
tr.muted td { color: var(--muted); }
tr.hit td { background: #fff3b0; }
.note { color: var(--muted); font-size: 12px; margin: 4px 0; }
.row { display: flex; flex-wrap: wrap; gap: 16px; align-items: flex-start; }
.scroll { max-height: 460px; overflow: auto; border: 1px solid var(--line); }
svg { background: #fff; font: 11px system-ui, sans-serif; }
svg text { fill: var(--fg); }
svg .host.hit, svg .hit { stroke: #000 !important; stroke-width: 3px !important; }
.legend { display: flex; flex-wrap: wrap; gap: 12px; font-size: 12px; color: var(--muted); margin: 4px 0; }
.legend i { display: inline-block; width: 22px; height: 4px; vertical-align: middle; margin-right: 4px; }
.swatch { display: inline-block; width: 10px; height: 10px; margin-right: 3px; vertical-align: middle; border: 1px solid #888; }
details { border: 1px solid var(--line); border-radius: 4px; margin: 4px 0; padding: 3px 8px; }
details summary { cursor: pointer; }
details .hyp { margin: 6px 0 6px 12px; padding-left: 8px; border-left: 3px solid var(--line); }
.bar { display: inline-block; height: 8px; background: var(--accent); vertical-align: middle; margin: 0 6px; }
.bar.fault { background: var(--bad); }
.for { color: #1a6d1a; } .against { color: #8a1c1c; }
button.pick { margin: 2px; padding: 2px 8px; font-size: 12px; cursor: pointer; }
button.pick.on { background: var(--accent); color: #fff; border-color: var(--accent); }
a.host { color: var(--accent); cursor: pointer; text-decoration: underline; }
.charts { display: flex; flex-wrap: wrap; gap: 10px; }
.chart { border: 1px solid var(--line); }
.chart h4 { margin: 2px 6px; font-size: 12px; font-weight: 600; word-break: break-all; }
)CSS";
  return kStyle;
}

}  // namespace toposcope::report::html
