// The page of `ralph serve`: one HTML shell, one script, one stylesheet, all served by the server
// itself (no CDN: the page works without a network). Plain ES2017 and the DOM, no framework: the
// page is three tables and a log fed by server-sent events, which a view library would not make
// shorter. Run data (all of it possibly written by an agent) only ever enters the page through
// textContent and setAttribute on data-* and title attributes; never innerHTML, never a URL the
// page follows other than its own. The script keeps the transcript to a bounded number of lines.
import { APP_SCRIPT } from './app-script.js';
import { APP_STYLE } from './app-style.js';

export { APP_SCRIPT, APP_STYLE };

/** The shell; `token` (hex) is what the stop action must send back. */
export function pageHtml(token: string): string {
  if (!/^[0-9a-f]+$/.test(token)) throw new Error('token must be hex');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="ralph-token" content="${token}">
<title>ralph</title>
<link rel="stylesheet" href="/app.css">
</head>
<body>
<header><a href="/" class="brand">ralph</a> <span id="where"></span> <a href="/report" id="report-link">morning report</a> <span id="live" class="live off">connecting…</span></header>
<main id="main"></main>
<script src="/app.js"></script>
</body>
</html>
`;
}
