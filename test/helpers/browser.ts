// Real Chromium through playwright-core for the tests of pages ralph writes (the html report,
// `ralph serve`). The browser is found through RALPH_CHROMIUM or PATH (chromium,
// chromium-browser, google-chrome); where none is found or none starts, a suite skips loudly, and
// under .ci/run (which installs Debian's chromium) fails instead.
import { readdirSync, readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { chromium, type Browser, type Page } from 'playwright-core';
import { expect, vi } from 'vitest';
import { isRunning } from './processes.js';
import { findProgram, systemDepAvailable } from './system-deps.js';
import { PATIENCE_MS } from './patience.js';

// An inert switch that lets the tests find the browser's processes to check they all ended.
const MARKER = `--ralph-test-browser=${randomUUID()}`;
const LAUNCH_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', MARKER];
const CHROMIUM = findProgram('RALPH_CHROMIUM', ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable']);
const HINT = 'Install a browser (Debian: apt-get install chromium) or point RALPH_CHROMIUM at one; .ci/run installs it.';

async function startProblem(): Promise<string | undefined> {
  if (CHROMIUM === undefined) return process.env.RALPH_CHROMIUM ? `RALPH_CHROMIUM=${process.env.RALPH_CHROMIUM} is not an executable file` : 'no chromium on PATH and RALPH_CHROMIUM not set';
  try {
    const probe = await chromium.launch({ executablePath: CHROMIUM, args: LAUNCH_ARGS, timeout: PATIENCE_MS });
    await probe.close();
    return undefined;
  } catch (error) {
    return `${CHROMIUM} did not start (${String((error as Error).message).split('\n')[0]})`;
  }
}

/** Whether a suite that needs the browser for `what` runs (see systemDepAvailable). */
export async function browserAvailable(what: string): Promise<boolean> {
  return systemDepAvailable(what, await startProblem(), HINT);
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: LAUNCH_ARGS });
}

/** Closes the browser and checks none of its processes is left. */
export async function closeBrowser(browser: Browser | undefined): Promise<void> {
  if (!browser) return;
  const pids = browserPids();
  await browser.close();
  await vi.waitFor(() => expect(pids.filter(isRunning)).toEqual([]), { timeout: PATIENCE_MS, interval: 100 });
}

export interface Watched {
  page: Page;
  dialogs: string[];
  requests: string[];
  errors: string[];
}

/** A page that records dialogs, requests, script errors and CSP violations. */
export async function openPage(browser: Browser, url: string): Promise<Watched> {
  const page = await browser.newPage();
  const w: Watched = { page, dialogs: [], requests: [], errors: [] };
  page.on('dialog', (d) => {
    w.dialogs.push(d.message());
    void d.dismiss();
  });
  page.on('request', (r) => w.requests.push(r.url()));
  page.on('pageerror', (e) => w.errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') w.errors.push(m.text());
  });
  // A string, not a function: this file is compiled without DOM types.
  await page.addInitScript(`
    window.__violations = [];
    document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));
  `);
  await page.goto(url, { waitUntil: 'load' });
  // Set once; still there later means the page was never reloaded.
  await page.evaluate('window.__loadedOnce = true');
  return w;
}

/** The browser processes (found by MARKER) and all their descendants. */
function browserPids(): number[] {
  const parent = new Map<number, number>();
  const roots: number[] = [];
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(MARKER)) roots.push(pid);
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      parent.set(pid, Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // exited while we looked
    }
  }
  // None found would make "none left" prove nothing.
  expect(roots.length).toBeGreaterThan(0);
  const all = new Set(roots);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, ppid] of parent) {
      if (!all.has(pid) && all.has(ppid)) {
        all.add(pid);
        grew = true;
      }
    }
  }
  return [...all];
}
