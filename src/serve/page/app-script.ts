// The page's only script (see assets.ts). Three views by path: `/` (runs, batches, workers),
// `/run?key=` (one run: timeline, findings, transcript, files, stop) and `/batch?id=` (its plans,
// index and report). Each view opens one EventSource; the server sends whole rows, the page
// redraws them. Every text from the server goes through textContent.
export const APP_SCRIPT = String.raw`
(function () {
  'use strict';
  var token = document.querySelector('meta[name="ralph-token"]').getAttribute('content');
  var main = document.getElementById('main');
  var live = document.getElementById('live');
  var where = document.getElementById('where');
  var MAX_LINES = 2000;

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function add(parent, child) { parent.appendChild(child); return child; }
  function cell(tr, text, cls) { return add(tr, el('td', cls, text)); }
  function link(href, text) { var a = el('a', null, text); a.setAttribute('href', href); return a; }
  function dur(ms) {
    if (ms === null || ms === undefined || !isFinite(ms)) return '';
    var s = Math.max(0, Math.round(ms / 1000));
    if (s < 60) return s + 's';
    var m = Math.floor(s / 60); if (m < 60) return m + 'm ' + (s % 60) + 's';
    var h = Math.floor(m / 60); return h + 'h ' + (m % 60) + 'm';
  }
  function money(v) { return v === null || v === undefined ? '' : '$' + Number(v).toFixed(4); }
  function since(iso) { var t = Date.parse(iso); return isFinite(t) ? Date.now() - t : null; }
  function table(heads) {
    var t = el('table'), tr = add(add(t, el('thead')), el('tr'));
    heads.forEach(function (h) { add(tr, el('th', null, h)); });
    add(t, el('tbody'));
    return t;
  }
  function connect(url, handlers) {
    var es = new EventSource(url);
    es.onopen = function () { live.textContent = 'live'; live.className = 'live on'; };
    es.onerror = function () { live.textContent = 'reconnecting…'; live.className = 'live off'; };
    Object.keys(handlers).forEach(function (name) {
      es.addEventListener(name, function (m) { handlers[name](JSON.parse(m.data)); });
    });
    return es;
  }
  // Redraws at most once a frame however many events arrive.
  function scheduler(draw) {
    var pending = false;
    return function () {
      if (pending) return;
      pending = true;
      requestAnimationFrame(function () { pending = false; draw(); });
    };
  }

  // The live cells: a wait counts down and elapsed time goes on between events.
  function stateText(r) {
    if (r.state === 'waiting' && r.waitingUntil) {
      var left = Date.parse(r.waitingUntil) - Date.now();
      return 'waiting ' + dur(Math.max(0, left)) + (r.waitingFor ? ' (' + r.waitingFor + ')' : '');
    }
    return r.state;
  }
  function elapsed(r) {
    var start = Date.parse(r.startedAt), end = r.endedAt ? Date.parse(r.endedAt) : Date.now();
    return isFinite(start) ? dur(end - start) : '';
  }
  function tasksText(r) {
    if (!r.tasks) return '';
    var done = r.tasks.filter(function (t) { return t.state === 'passing'; }).length;
    return done + '/' + r.tasks.length + ' verified';
  }
  function lastTool(r) { return r.lastTool ? r.lastTool.label + ' · ' + dur(since(r.lastTool.at)) : ''; }
  function notes(r) {
    var parts = [];
    if (r.nearMisses) parts.push(r.nearMisses + ' near miss' + (r.nearMisses === 1 ? '' : 'es'));
    if (r.warnings) parts.push(r.warnings + ' warning' + (r.warnings === 1 ? '' : 's'));
    return parts.join(', ');
  }
  function ticking(td, fn, r) { td.setAttribute('data-tick', '1'); td.__tick = function () { td.textContent = fn(r); }; td.__tick(); return td; }
  setInterval(function () {
    var cells = document.querySelectorAll('[data-tick]');
    for (var i = 0; i < cells.length; i++) if (cells[i].__tick) cells[i].__tick();
  }, 1000);

  function runRow(r, extra) {
    var tr = el('tr');
    tr.setAttribute('data-key', r.key);
    tr.setAttribute('data-state', r.state);
    tr.setAttribute('data-outcome', r.outcome || '');
    var first = add(tr, el('td'));
    add(first, link('/run?key=' + encodeURIComponent(r.key), extra || r.runId));
    cell(tr, r.plan || '', 'plan');
    ticking(cell(tr, '', 'state'), stateText, r);
    var task = cell(tr, r.task || '', 'task');
    if (r.tasks) add(task, el('div', 'muted tasks', tasksText(r)));
    cell(tr, r.iteration + (r.maxIterations ? ' of ' + r.maxIterations : ''), 'iteration');
    ticking(cell(tr, '', 'elapsed'), elapsed, r);
    cell(tr, money(r.costUsd), 'cost');
    var tool = ticking(cell(tr, '', 'tool'), lastTool, r);
    if (r.state === 'done') tool.removeAttribute('data-tick');
    cell(tr, r.lastWords || '', 'words');
    var n = cell(tr, notes(r), 'warn notes');
    if (r.lastWarning || r.lastNearMiss) n.setAttribute('title', r.lastWarning || r.lastNearMiss);
    var out = cell(tr, '', 'outcome-cell');
    if (r.outcome) {
      add(out, el('span', 'outcome', r.outcome));
      add(out, el('div', 'muted reason', r.reason));
    } else if (r.state === 'stale' || r.state === 'dead') add(out, el('div', 'muted reason', r.why));
    return tr;
  }
  var RUN_HEADS = ['run', 'plan', 'state', 'task', 'iteration', 'elapsed', 'cost', 'last tool', 'last words', 'notes', 'outcome'];

  function overview() {
    var runs = {}, batches = {}, queue = null;
    var draw = scheduler(function () {
      main.textContent = '';
      if (queue) drawQueue();
      var bs = Object.keys(batches).sort().reverse();
      if (bs.length) {
        add(main, el('h2', null, 'Batches'));
        bs.forEach(function (id) { drawBatch(batches[id], runs, main, true); });
      }
      add(main, el('h2', null, 'Runs'));
      var singles = Object.keys(runs).map(function (k) { return runs[k]; }).filter(function (r) { return !r.batch; });
      singles.sort(function (a, b) { return String(b.startedAt).localeCompare(String(a.startedAt)); });
      if (!singles.length) { add(main, el('p', 'muted', 'No single runs yet: start one with ralph exec <plan.md>.')); return; }
      var t = add(main, table(RUN_HEADS));
      t.id = 'runs';
      singles.forEach(function (r) { add(t.tBodies[0], runRow(r)); });
    });
    function drawQueue() {
      add(main, el('h2', null, 'Workers'));
      var head = add(main, el('p', 'muted', queue.queue + ': ' + queue.running.length + ' plan(s) running, ' + queue.waiting.length + ' waiting'));
      if (queue.error) add(head, el('span', 'warn', ' · ' + queue.error));
      var t = add(main, table(['worker', 'batch', 'plan', 'attempt', 'iteration', 'elapsed', 'heartbeat', 'checkout']));
      t.id = 'workers';
      queue.workers.forEach(function (w) {
        w.plans.forEach(function (p) {
          var tr = add(t.tBodies[0], el('tr'));
          tr.setAttribute('data-worker', w.worker);
          cell(tr, w.worker, 'worker');
          cell(tr, p.batch);
          cell(tr, p.plan, 'plan');
          cell(tr, p.attempt);
          cell(tr, p.iteration ? p.iteration + ' of ' + p.maxIterations : 'starting');
          ticking(cell(tr, ''), elapsed, p);
          ticking(cell(tr, ''), function () { return p.heartbeat ? dur(since(p.heartbeat)) + ' ago' : ''; }, p);
          cell(tr, p.checkout || '', 'mono');
        });
      });
      queue.waiting.forEach(function (p) {
        var tr = add(t.tBodies[0], el('tr'));
        cell(tr, 'waiting', 'muted'); cell(tr, p.batch); cell(tr, p.plan, 'plan');
        for (var i = 0; i < 5; i++) cell(tr, '');
      });
    }
    connect('/api/events', {
      hello: function (h) { where.textContent = h.cwd; },
      runs: function (list) { runs = {}; list.forEach(function (r) { runs[r.key] = r; }); draw(); },
      run: function (r) { runs[r.key] = r; draw(); },
      batches: function (list) { batches = {}; list.forEach(function (b) { batches[b.id] = b; }); draw(); },
      batch: function (b) { batches[b.id] = b; draw(); },
      queue: function (q) { queue = q; draw(); }
    });
  }

  function drawBatch(b, runs, parent, withLink) {
    var box = add(parent, el('section', 'batch'));
    box.setAttribute('data-batch', b.id);
    var h = add(box, el('h3'));
    if (withLink) add(h, link('/batch?id=' + encodeURIComponent(b.id), 'batch ' + b.id)); else h.textContent = 'batch ' + b.id;
    var done = b.plans.filter(function (p) { var r = p.key && runs[p.key]; return p.outcome || (r && r.state === 'done'); }).length;
    add(h, el('span', 'muted', ' · ' + b.status + ' · ' + done + '/' + b.plans.length + ' plans ended' + (b.queue ? ' · queue ' + b.queue : '')));
    var t = add(box, table(['plan'].concat(RUN_HEADS.slice(2))));
    t.className = 'plans';
    b.plans.forEach(function (p) {
      var r = p.key && runs[p.key];
      if (r) {
        var tr = runRow(r, p.id);
        tr.removeChild(tr.children[1]);
        tr.setAttribute('data-plan', p.id);
        if (p.attempts > 1) add(tr.children[0], el('span', 'muted', ' (attempt ' + p.attempts + ')'));
        add(t.tBodies[0], tr);
        return;
      }
      var row = add(t.tBodies[0], el('tr'));
      row.setAttribute('data-plan', p.id);
      row.setAttribute('data-state', p.outcome ? 'done' : 'waiting');
      row.setAttribute('data-outcome', p.outcome || '');
      cell(row, p.id);
      cell(row, p.outcome ? 'done' : 'not started', 'state');
      for (var i = 0; i < 7; i++) cell(row, '');
      var oc = cell(row, '', 'outcome-cell');
      if (p.outcome) add(oc, el('span', 'outcome', p.outcome));
    });
  }

  function batchPage(id) {
    var runs = {}, batch = null, shown = '';
    where.textContent = 'batch ' + id;
    var draw = scheduler(function () {
      var keep = document.getElementById('batch-files');
      main.textContent = '';
      if (!batch) { add(main, el('p', 'muted', 'No batch ' + id + ' (yet).')); return; }
      drawBatch(batch, runs, main, false);
      var reportHref = '/report?batch=' + encodeURIComponent(id);
      add(add(main, el('p')), link(reportHref, 'the report of this batch (html, with filters)'));
      if (keep) add(main, keep); else loadFiles();
      var state = String(batch.hasIndex) + batch.hasReport + batch.status;
      if (state !== shown) { shown = state; loadFiles(); }
    });
    function loadFiles() {
      fetch('/api/batch?id=' + encodeURIComponent(id)).then(function (r) { return r.json(); }).then(function (f) {
        var old = document.getElementById('batch-files');
        var box = el('div'); box.id = 'batch-files';
        add(box, el('h2', null, 'index.md'));
        add(box, el('pre', 'index', f.index === null ? '(written when the batch ends)' : f.index));
        add(box, el('h2', null, 'report.md'));
        add(box, el('pre', 'report', f.report === null ? '(written when the batch ends)' : f.report));
        if (old) old.parentNode.replaceChild(box, old); else add(main, box);
      });
    }
    connect('/api/events', {
      runs: function (list) { runs = {}; list.forEach(function (r) { runs[r.key] = r; }); draw(); },
      run: function (r) { runs[r.key] = r; draw(); },
      batches: function (list) { list.forEach(function (b) { if (b.id === id) batch = b; }); draw(); },
      batch: function (b) { if (b.id === id) { batch = b; draw(); } }
    });
  }

  function runPage(key, iteration) {
    where.textContent = key;
    var summary = null, digest = null;
    var top = add(main, el('section')); top.id = 'summary';
    var controls = add(main, el('p'));
    var stop = add(controls, el('button', null, 'Stop after this iteration')); stop.id = 'stop'; stop.disabled = true;
    var stopMsg = add(controls, el('span', 'muted')); stopMsg.id = 'stop-message';
    // Asked once, the button stays off (a summary that arrives before the answer does not turn it back on).
    var asked = false;
    stop.onclick = function () {
      asked = true;
      stop.disabled = true;
      fetch('/api/stop', { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Ralph-Token': token }, body: JSON.stringify({ key: key }) })
        .then(function (r) { return r.json(); })
        .then(function (a) { stopMsg.textContent = a.message; }, function () { stopMsg.textContent = 'could not ask'; asked = false; stop.disabled = false; });
    };
    add(main, el('h2', null, 'Timeline'));
    var timeline = add(main, table(['iteration', 'prompt', 'duration', 'cost', 'decision', 'checks', 'signals', 'tools', 'notes']));
    timeline.id = 'timeline';
    add(main, el('h2', null, 'Findings'));
    var findings = add(main, table(['iteration', 'severity', 'type', 'title', 'file']));
    findings.id = 'findings';
    var th = add(main, el('h2', null, 'Transcript '));
    var which = add(th, el('span', 'muted')); which.id = 'transcript-iteration';
    var toggle = add(th, el('label', 'muted')); var box = add(toggle, el('input')); box.type = 'checkbox'; add(toggle, document.createTextNode(' words only'));
    var log = add(main, el('div')); log.id = 'transcript';
    box.onchange = function () { log.className = box.checked ? 'words-only' : ''; };
    add(main, el('h2', null, 'Files'));
    var files = add(main, el('div')); files.id = 'files';
    add(files, el('p', 'muted', 'result.json and the other files of the run, once it ended.'));
    var filesFor = '';

    var drawSummary = scheduler(function () {
      top.textContent = '';
      var r = summary;
      if (!r) return;
      top.setAttribute('data-state', r.state);
      top.setAttribute('data-outcome', r.outcome || '');
      var dl = add(top, el('dl', 'facts'));
      function fact(name, value, cls) { add(dl, el('dt', null, name)); return add(dl, el('dd', cls, value)); }
      fact('plan', r.planPath || r.plan);
      ticking(fact('state', '', 'state'), stateText, r);
      fact('task', r.task || (r.tasks ? '' : '—'));
      if (r.tasks) fact('tasks', r.tasks.map(function (t) { return t.name + ': ' + t.state; }).join('\n'));
      fact('iteration', r.iteration + (r.maxIterations ? ' of ' + r.maxIterations : ''));
      ticking(fact('elapsed', ''), elapsed, r);
      fact('cost', money(r.costUsd) || 'unknown');
      ticking(fact('last tool', '', 'tool'), lastTool, r);
      fact('near misses', r.nearMisses + (r.lastNearMiss ? ' · last: ' + r.lastNearMiss : ''));
      fact('warnings', r.warnings + (r.lastWarning ? ' · last: ' + r.lastWarning : ''));
      if (r.outcome) { fact('outcome', r.outcome, 'outcome'); fact('reason', r.reason, 'reason'); }
      else fact('health', r.why);
      var running = r.state !== 'done' && r.state !== 'dead';
      stop.disabled = !running || asked;
      if (!running && filesFor !== r.state + r.outcome) { filesFor = r.state + r.outcome; loadFiles(); }
    });
    var drawDigest = scheduler(function () {
      var d = digest, body = timeline.tBodies[0];
      body.textContent = '';
      d.iterations.forEach(function (it) {
        var tr = add(body, el('tr'));
        tr.setAttribute('data-iteration', String(it.iteration));
        var c = add(tr, el('td'));
        add(c, link('/run?key=' + encodeURIComponent(key) + '&iteration=' + it.iteration, String(it.iteration)));
        cell(tr, (it.prompt || '') + (it.fresh === false ? ' (same context)' : ''));
        cell(tr, dur(it.durationMs));
        cell(tr, money(it.costUsd));
        cell(tr, (it.decision || '') + (it.decisionDetail ? ': ' + it.decisionDetail : ''), 'decision');
        var checks = cell(tr, '', 'checks');
        it.gates.forEach(function (g) { add(checks, el('div', g.accepted ? 'ok' : 'warn', (g.accepted ? 'accepted: ' : 'rejected: ') + g.reason)); });
        cell(tr, it.signals.join(', '), 'mono');
        cell(tr, it.tools || '');
        cell(tr, it.stops.concat(it.waits).concat(it.nearMisses ? [it.nearMisses + ' near miss(es)'] : []).join('\n'), 'warn notes-cell');
      });
      var fb = findings.tBodies[0];
      fb.textContent = '';
      d.findings.forEach(function (f) {
        var tr = add(fb, el('tr'));
        cell(tr, f.iteration); cell(tr, f.valid ? f.severity : 'invalid'); cell(tr, f.type); cell(tr, f.title); cell(tr, f.file || '', 'mono');
      });
    });
    function loadFiles() {
      fetch('/api/run/files?key=' + encodeURIComponent(key)).then(function (r) { return r.json(); }).then(function (f) {
        files.textContent = '';
        [['result.json', f.result], ['BLOCKED.md', f.blocked], ['findings.jsonl', f.findings]].forEach(function (p) {
          if (p[1] === null) return;
          add(files, el('h3', null, p[0]));
          add(files, el('pre', 'file', p[1])).setAttribute('data-file', p[0]);
        });
        if (!files.firstChild) add(files, el('p', 'muted', 'No result yet.'));
      });
    }
    function push(item) {
      var div = add(log, el('div', item.kind, item.text));
      while (log.childNodes.length > MAX_LINES) log.removeChild(log.firstChild);
      return div;
    }
    connect('/api/run?key=' + encodeURIComponent(key) + (iteration ? '&iteration=' + encodeURIComponent(iteration) : ''), {
      summary: function (s) { summary = s; drawSummary(); },
      digest: function (d) { digest = d; drawDigest(); },
      transcript: function (t) {
        var follow = log.scrollTop + log.clientHeight >= log.scrollHeight - 20;
        if (t.reset) log.textContent = '';
        which.textContent = '(iteration ' + t.iteration + ')';
        t.items.forEach(push);
        if (follow) log.scrollTop = log.scrollHeight;
      }
    });
  }

  var params = new URLSearchParams(location.search);
  if (location.pathname === '/run') runPage(params.get('key') || '', params.get('iteration'));
  else if (location.pathname === '/batch') batchPage(params.get('id') || '');
  else overview();
})();
`;
