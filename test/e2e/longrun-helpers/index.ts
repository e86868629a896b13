export * from './workspace.js';
export * from './processes.js';
export * from './streams.js';
export { trackWorkspaces } from './track.js';
