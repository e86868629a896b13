// The `command` executor: any agent CLI as a child process (text, claude-json or codex-json output).
export { createCommandExecutor } from './command-executor.js';
export type { CommandExecutorOptions, CommandExecutorTuning } from './command-executor.js';
export { terminateProcessGroup, processGroupAlive } from '../process-group.js';
