import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

export const FIXTURES = fileURLToPath(new URL('../../fixtures/runs/', import.meta.url));
export const BASIC = join(FIXTURES, 'basic');
export const MALICIOUS = join(FIXTURES, 'malicious');
export const REPO = fileURLToPath(new URL('../../../', import.meta.url));
