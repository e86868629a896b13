import { describe, expect, it } from 'vitest';
import { isTaskCompleteChecked } from '../../src/plan/index.js';

describe('isTaskCompleteChecked', () => {
  it.each([
    ['- [x] TASK_COMPLETE'],
    ['- [X] TASK_COMPLETE'],
    ['* [x] TASK_COMPLETE'],
    ['+ [x] TASK_COMPLETE'],
    ['   - [x] TASK_COMPLETE'],
    ['\t- [x] TASK_COMPLETE'],
    ['- [x] TASK_COMPLETE   '],
    ['- [x] TASK_COMPLETE\r'],
    ['- [x] TASK_COMPLETE: all tasks done'],
    ['- [x] TASK_COMPLETE — see summary'],
  ])('counts %j as checked', (line) => {
    expect(isTaskCompleteChecked(`# Plan\n\n## Progress\n${line}\nmore text\n`)).toBe(true);
  });

  it.each([
    ['- [ ] TASK_COMPLETE'],
    ['- [] TASK_COMPLETE'],
    ['[x] TASK_COMPLETE'],
    ['-[x] TASK_COMPLETE'],
    ['- [x]TASK_COMPLETE'],
    ['- [x] TASK_COMPLETED'],
    ['- [x] TASK_COMPLETE_LATER'],
    ['- [x] task_complete'],
    ['- [x] not TASK_COMPLETE'],
    ['1. [x] TASK_COMPLETE'],
    ['Check - [x] TASK_COMPLETE when done'],
  ])('does not count %j', (line) => {
    expect(isTaskCompleteChecked(`# Plan\n${line}\n`)).toBe(false);
  });

  it('ignores a checked box inside a backtick or tilde fence', () => {
    expect(isTaskCompleteChecked('Example:\n```md\n- [x] TASK_COMPLETE\n```\n- [ ] TASK_COMPLETE\n')).toBe(false);
    expect(isTaskCompleteChecked('~~~\n- [x] TASK_COMPLETE\n~~~\n')).toBe(false);
  });

  it('ignores a checked box in a fence that is never closed', () => {
    expect(isTaskCompleteChecked('````\n```\n- [x] TASK_COMPLETE\n')).toBe(false);
  });

  it('needs the same fence character, at least as long, to close a fence', () => {
    // "~~~" and a shorter "```" do not close a "````" fence, so the box is still inside it.
    expect(isTaskCompleteChecked('````\n~~~\n```\n- [x] TASK_COMPLETE\n````\n')).toBe(false);
    // After a proper close the box counts.
    expect(isTaskCompleteChecked('````\ncode\n`````\n- [x] TASK_COMPLETE\n')).toBe(true);
  });

  it('counts a box after a fence has closed', () => {
    expect(isTaskCompleteChecked('```\n- [ ] x\n```\n\n- [x] TASK_COMPLETE\n')).toBe(true);
  });

  it('does not treat an indented code line (4+ spaces) of backticks as a fence', () => {
    expect(isTaskCompleteChecked('    ```\n- [x] TASK_COMPLETE\n')).toBe(true);
  });
});
