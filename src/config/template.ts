// The commented ralph.config.yaml that `ralph init` writes (docs/config.md). Everything in it is
// commented out but `agents:`, so a new file changes nothing until someone edits it. It must
// stay valid: test/config/load-config.test.ts loads it.
import { HOOKS, NOTIFY, STREAM_FORMATS } from '../contract.js';

export const CONFIG_TEMPLATE = `# ralph.config.yaml: the project's settings for ralph (docs/config.md, shipped with ralph: \`ralph --help\` says where).
# Found from the working directory upward. Precedence: command-line flags, then the plan's
# front matter, then this file, then ralph's built-in defaults. \`ralph config\` shows the
# settings in effect and where each came from. \${VAR} takes a value from the environment
# (\${VAR:-fallback} when it may be unset); keep webhook URLs and tokens out of this file that way.

# The agent that runs when neither the command line nor the plan chooses one.
# agent: claude

# Named agents for --agent NAME (these win over the built-in presets of the same name).
agents:
  # claude:
  #   command: [claude, -p, --output-format, stream-json, --verbose, --dangerously-skip-permissions]
  #   stream_format: claude-json        # ${STREAM_FORMATS.join(' | ')}
  # codex:
  #   command: [codex, exec, --json, --sandbox, workspace-write, --skip-git-repo-check]
  #   stream_format: codex-json

# Defaults for ralph exec and ralph batch options (a flag or the plan's front matter wins).
# defaults:
#   max_iterations: 20
#   max_bailouts: 3
#   max_runtime: 2h
#   max_cost_usd: 10
#   silence_timeout: 10m
#   iteration_timeout: 45m
#   max_wait: 6h                        # longest wait for a usage limit
#   max_stalls: 3
#   concurrency: 2                      # batch
#   out: .ralph/batches/nightly         # batch; relative to this file's folder
#   plan_timeout: 90m                   # batch

# Where to say that something happened. Events: ended, blocked, waiting, resumed, batch_ended.
# A failed delivery is retried for ${NOTIFY.retryWindowMs / 1000}s, never fails the run, and is a warning in the
# run's events and result; at exit ralph waits at most ${NOTIFY.flushMs / 1000}s for deliveries.
# notify:
#   - slack: \${SLACK_WEBHOOK}
#     events: [blocked, batch_ended]
#   - webhook: https://example.com/ralph
#     secret: \${RALPH_WEBHOOK_SECRET}   # HMAC-SHA256 of the body in X-Ralph-Signature-256
#     events: [ended]
#     outcomes: [failed, blocked, off_rails]
#   - ntfy: https://ntfy.sh/\${NTFY_TOPIC}
#   - command: notify-send ralph "$RALPH_SUMMARY_TEXT"

# Shell commands at a run's turning points, in the working directory, with the facts in RALPH_*
# variables and as JSON on stdin; ${HOOKS.timeoutMs / 1000}s each unless \`timeout:\` says otherwise. A failing hook
# is a warning; an after_iteration hook that exits ${HOOKS.stopExitCode} stops the run after that iteration.
# hooks:
#   before_iteration: ./scripts/sync.sh
#   after_iteration:
#     - run: ./scripts/budget-check.sh
#       timeout: 30s
#   on_outcome: echo "$RALPH_PLAN_ID ended $RALPH_OUTCOME" >> ralph.log
#   after_plan: ./scripts/open-pr.sh
#   after_batch: ./scripts/post-index.sh
`;
