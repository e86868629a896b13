// The html report's only script and stylesheet. The Content-Security-Policy allows exactly these
// two by hash, so nothing else (nothing an agent wrote) can run or restyle the page.
import { createHash } from 'node:crypto';

// Plain ES2017 for any browser; reads its option lists from the JSON data block and only ever
// sets textContent / hidden, never HTML.
export const REPORT_SCRIPT = `
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('report-data').textContent);
  var pick = function (id) { return document.getElementById(id); };
  var fill = function (id, values) {
    var select = pick(id);
    values.forEach(function (v) { select.add(new Option(v, v)); });
  };
  fill('f-severity', data.severities);
  fill('f-type', data.types);
  fill('f-action', data.actions);
  fill('f-plan', data.plans);
  var rows = Array.prototype.slice.call(document.querySelectorAll('#findings-table tbody tr'));
  var texts = null;
  var plans = rows.map(function (r) { return JSON.parse(r.getAttribute('data-plans') || '[]'); });
  var shown = pick('shown');
  function apply() {
    var sev = pick('f-severity').value, type = pick('f-type').value, action = pick('f-action').value;
    var plan = pick('f-plan').value, q = pick('f-search').value.trim().toLowerCase();
    if (q && texts === null) texts = rows.map(function (r) { return r.textContent.toLowerCase(); });
    var n = 0;
    rows.forEach(function (r, i) {
      var ok = (!sev || r.getAttribute('data-severity') === sev) &&
        (!type || r.getAttribute('data-type') === type) &&
        (!action || r.getAttribute('data-action') === action) &&
        (!plan || plans[i].indexOf(plan) !== -1) &&
        (!q || texts[i].indexOf(q) !== -1);
      r.hidden = !ok;
      if (ok) n++;
    });
    shown.textContent = n + ' of ' + rows.length + ' shown';
  }
  var form = pick('filters');
  form.addEventListener('input', apply);
  form.addEventListener('change', apply);
  form.addEventListener('submit', function (e) { e.preventDefault(); });
  apply();
})();
`;

export const REPORT_STYLE = `
:root { color-scheme: light dark; --line: #8884; --muted: #888; }
body { font: 14px/1.45 system-ui, sans-serif; margin: 1.5rem auto; max-width: 80rem; padding: 0 1rem; }
h1 { font-size: 1.5rem; margin: 0 0 .25rem; }
h2 { font-size: 1.15rem; margin-top: 2rem; border-bottom: 1px solid var(--line); }
.muted { color: var(--muted); }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; vertical-align: top; padding: .3rem .5rem; border-bottom: 1px solid var(--line); }
td.num, th.num { text-align: right; }
summary { cursor: pointer; }
.detail, pre { white-space: pre-wrap; overflow-wrap: anywhere; margin: .3rem 0; }
pre { font-size: 12px; background: #8881; padding: .4rem; }
form { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; margin: .5rem 0; }
.sev { font-weight: 600; }
.sev-critical { color: #c0392b; } .sev-high { color: #d35400; } .sev-medium { color: #b7950b; }
.sev-low { color: #2e86c1; } .sev-info { color: #7f8c8d; }
svg text { font: 12px system-ui, sans-serif; fill: currentColor; }
`;

function sha256(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  `script-src ${sha256(REPORT_SCRIPT)}`,
  `style-src ${sha256(REPORT_STYLE)}`,
  "img-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');
