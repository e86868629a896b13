import { afterAll, afterEach, expect } from 'vitest';
import { killLeftovers } from './processes.js';
import { removeWorkspaces, Workspace, type WorkspaceOptions } from './workspace.js';

/**
 * Registers the hooks every long-run test file needs: after each test nothing it started may
 * still run, and temporary folders go at the end. Returns the factory for workspaces.
 */
export function trackWorkspaces(): (options?: WorkspaceOptions) => Workspace {
  const workspaces: Workspace[] = [];
  afterEach(() => {
    const left = killLeftovers(workspaces.splice(0).flatMap((w) => w.allPids()));
    expect(left, 'processes left running after the test').toEqual([]);
  });
  afterAll(removeWorkspaces);
  return (options) => {
    const ws = new Workspace(options);
    workspaces.push(ws);
    return ws;
  };
}
