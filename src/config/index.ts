// config/'s public surface: ralph.config.yaml found, read and validated; the text `ralph init` writes.
export { findConfigFile, loadProjectConfig, parseProjectConfig, emptyConfig } from './load-config.js';
export type { ProjectConfig, HookCommand, BatchDefaults, Secrets } from './types.js';
export { CONFIG_TEMPLATE } from './template.js';
