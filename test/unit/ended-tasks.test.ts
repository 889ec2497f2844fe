// The memory of ended tasks: only tasks that ended, only for their own account, and bounded.
import { describe, expect, it } from 'vitest';
import type { TaskView } from '../../src/generation/task-view.ts';
import { createEndedTasks } from '../../src/services/ended-tasks.ts';

const view = (id: string, status: TaskView['status']) => ({ id, status }) as TaskView;

describe('createEndedTasks', () => {
  it('remembers completed and failed tasks, for their account only', () => {
    const ended = createEndedTasks();
    ended.remember('acct_a', view('gen_1', 'completed'));
    ended.remember('acct_a', view('gen_2', 'failed'));
    expect(ended.get('gen_1', 'acct_a')).toEqual(view('gen_1', 'completed'));
    expect(ended.get('gen_2', 'acct_a')).toEqual(view('gen_2', 'failed'));
    expect(ended.get('gen_1', 'acct_b')).toBeUndefined();
  });

  it('never holds a task that has not ended', () => {
    const ended = createEndedTasks();
    ended.remember('acct_a', view('gen_1', 'queued'));
    ended.remember('acct_a', view('gen_2', 'processing'));
    expect(ended.get('gen_1', 'acct_a')).toBeUndefined();
    expect(ended.get('gen_2', 'acct_a')).toBeUndefined();
  });

  it('holds at most 10,000 tasks: the oldest goes first', () => {
    const ended = createEndedTasks();
    for (let index = 0; index <= 10_000; index += 1) ended.remember('acct_a', view(`gen_${index}`, 'completed'));
    expect(ended.get('gen_0', 'acct_a')).toBeUndefined();
    expect(ended.get('gen_1', 'acct_a')).toBeDefined();
    expect(ended.get('gen_10000', 'acct_a')).toBeDefined();
  });
});
