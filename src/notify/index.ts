// notify/'s public surface: targets from flags and the config file, one run's lifecycle (hooks
// and notifications), a batch's listener.
export { createRunLifecycle, type LifecycleSettings, type WaitEvent } from './run-lifecycle.js';
export { createBatchListener, type BatchListener } from './batch-listener.js';
export { targetFromEntry, targetFromFlag, type Target } from './targets.js';
export { makeRedactor, type Redact } from './redact.js';
export type { NotificationPayload } from './payload.js';
