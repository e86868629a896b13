// The html report's only script and stylesheet. The Content-Security-Policy allows exactly these
// two by hash, so nothing else (nothing an agent wrote) can run or restyle the page.
import { createHash } from 'node:crypto';

// Plain ES2017 for any browser. The findings arrive once, as data in the JSON block (see
// render-html.ts for its layout); the table shows them a page at a time, so a report of 100,000
// findings opens as fast as one of ten. Agent text only ever goes in through textContent (never
// HTML), and attributes only ever get our own enum values.
export const REPORT_SCRIPT = `
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('report-data').textContent);
  var pick = function (id) { return document.getElementById(id); };
  // Severities in their own order; types, actions and plans (listed as the rows first name
  // them) alphabetically.
  var fill = function (id, values, sorted) {
    var select = pick(id);
    (sorted ? values.slice().sort() : values).forEach(function (v) { select.add(new Option(v, v)); });
  };
  fill('f-severity', data.severities, false);
  fill('f-type', data.types, true);
  fill('f-action', data.actions, true);
  fill('f-plan', data.plans, true);
  var F = data.findings, W = data.width, total = F.length / W, PAGE = data.page;
  var body = document.querySelector('#findings-table tbody');
  var shown = pick('shown'), more = pick('more');
  var CONTROLS = /[\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f]/g;
  var clean = function (s) { return s === null ? '' : String(s).replace(CONTROLS, ''); };
  var ids = function (v) { return typeof v === 'number' ? [v] : v; };
  var runsOf = function (i) { return ids(F[i * W + 7]).map(function (k) { return data.runs[k]; }); };
  var texts = null, matches = [], listed = 0;
  function cell(tr, text, cls) {
    var td = document.createElement('td');
    if (cls) td.className = cls;
    td.textContent = text;
    tr.appendChild(td);
    return td;
  }
  function row(i) {
    var o = i * W, sev = data.severities[F[o]], runs = runsOf(i);
    var tr = document.createElement('tr');
    tr.setAttribute('data-severity', sev);
    tr.setAttribute('data-type', data.types[F[o + 1]]);
    tr.setAttribute('data-action', data.actions[F[o + 2]]);
    cell(tr, sev, 'sev sev-' + sev);
    cell(tr, data.types[F[o + 1]]);
    cell(tr, data.actions[F[o + 2]]);
    var details = document.createElement('details'), summary = document.createElement('summary'), detail = document.createElement('div');
    summary.textContent = clean(F[o + 3]);
    detail.className = 'detail';
    detail.textContent = clean(F[o + 4]);
    details.appendChild(summary);
    details.appendChild(detail);
    cell(tr, '').appendChild(details);
    cell(tr, clean(F[o + 5]));
    cell(tr, String(F[o + 6]), 'num');
    var label = runs.length <= 3 ? runs.join(', ') : runs.slice(0, 3).join(', ') + ' +' + (runs.length - 3) + ' more';
    var td = cell(tr, clean(label));
    if (runs.length > 3) td.title = clean(runs.join(', '));
    return tr;
  }
  function searchText(i) {
    var o = i * W;
    return [data.severities[F[o]], data.types[F[o + 1]], data.actions[F[o + 2]], F[o + 3], F[o + 4], F[o + 5] || '', F[o + 6]]
      .concat(runsOf(i)).join('\\n').toLowerCase();
  }
  function page() {
    var end = Math.min(matches.length, listed + PAGE), rows = document.createDocumentFragment();
    for (; listed < end; listed++) rows.appendChild(row(matches[listed]));
    body.appendChild(rows);
    var left = matches.length - listed;
    shown.textContent = left > 0
      ? listed + ' of ' + total + ' shown (' + matches.length + ' match the filters)'
      : matches.length + ' of ' + total + ' shown';
    more.hidden = left === 0;
    more.textContent = 'Show ' + Math.min(PAGE, left) + ' more (' + left + ' not shown yet)';
  }
  function apply() {
    var sev = data.severities.indexOf(pick('f-severity').value), type = data.types.indexOf(pick('f-type').value);
    var action = data.actions.indexOf(pick('f-action').value), plan = data.plans.indexOf(pick('f-plan').value);
    var q = pick('f-search').value.trim().toLowerCase();
    if (q && texts === null) {
      texts = new Array(total);
      for (var k = 0; k < total; k++) texts[k] = searchText(k);
    }
    matches = [];
    for (var i = 0; i < total; i++) {
      var o = i * W;
      if ((sev === -1 || F[o] === sev) && (type === -1 || F[o + 1] === type) && (action === -1 || F[o + 2] === action) &&
        (plan === -1 || ids(F[o + 8]).indexOf(plan) !== -1) && (!q || texts[i].indexOf(q) !== -1)) matches.push(i);
    }
    body.textContent = '';
    listed = 0;
    page();
  }
  var form = pick('filters');
  form.addEventListener('input', apply);
  form.addEventListener('change', apply);
  form.addEventListener('submit', function (e) { e.preventDefault(); });
  more.addEventListener('click', page);
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
