// The page's stylesheet (see assets.ts).
export const APP_STYLE = `
:root { color-scheme: light dark; --muted: #888; --line: #8884; --ok: #2e8b57; --bad: #c0392b; --warn: #b7950b; }
body { font: 14px/1.4 system-ui, sans-serif; margin: 0; }
header { display: flex; gap: 1rem; align-items: baseline; padding: .5rem 1rem; border-bottom: 1px solid var(--line); }
header .brand { font-weight: 700; text-decoration: none; color: inherit; }
#where { color: var(--muted); font-family: ui-monospace, monospace; font-size: 12px; flex: 1; overflow-wrap: anywhere; }
.live { font-size: 12px; } .live.on { color: var(--ok); } .live.off { color: var(--bad); }
main { padding: .5rem 1rem 2rem; }
h2 { font-size: 16px; margin: 1.2rem 0 .4rem; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; vertical-align: top; padding: .25rem .5rem; border-bottom: 1px solid var(--line); }
th { font-weight: 600; font-size: 12px; color: var(--muted); }
td { overflow-wrap: anywhere; }
td.iteration, td.elapsed, td.cost, td.plan, #runs td:first-child { white-space: nowrap; }
td.checks div, td.decision, td.notes-cell { white-space: pre-wrap; }
td.words { font-family: ui-monospace, monospace; font-size: 12px; color: var(--muted); max-width: 24rem; }
.muted { color: var(--muted); }
.mono, .tool { font-family: ui-monospace, monospace; font-size: 12px; }
.state { font-weight: 600; white-space: nowrap; }
[data-state="running"] .state, [data-state="verifying"] .state, [data-state="starting"] .state { color: #2e86c1; }
[data-state="waiting"] .state { color: var(--warn); }
[data-state="stale"] .state, [data-state="dead"] .state { color: var(--bad); }
[data-outcome="complete"] .outcome { color: var(--ok); }
[data-outcome]:not([data-outcome="complete"]):not([data-outcome=""]) .outcome { color: var(--bad); }
.warn { color: var(--warn); }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; margin: .5rem 0; }
.facts dt { color: var(--muted); } .facts dd { margin: 0; overflow-wrap: anywhere; }
#transcript { font-family: ui-monospace, monospace; font-size: 12px; max-height: 32rem; overflow: auto; border: 1px solid var(--line); padding: .4rem; }
#transcript div { white-space: pre-wrap; overflow-wrap: anywhere; }
#transcript .tool { color: #2e86c1; } #transcript .tool::before { content: '▸ '; } #transcript .output { color: var(--muted); } #transcript .note { color: var(--warn); font-style: italic; }
#transcript.words-only .output, #transcript.words-only .tool { display: none; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; font-size: 12px; background: #8881; padding: .4rem; max-height: 30rem; overflow: auto; }
button { font: inherit; padding: .2rem .7rem; }
#stop-message { margin-left: .5rem; }
`;
