// The memory of ended tasks: only tasks that ended, only for their own account, and bounded.
import { describe, expect, it } from 'vitest';
import type { TaskView } from '../../src/generations/task-view.ts';
import { createEndedTasks } from '../../src/generations/ended-tasks.ts';

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

  it('holds 32 MB of tasks (as JSON): the oldest go first', () => {
    const ended = createEndedTasks();
    // About 60 KB each: 32 MB holds 559 of them.
    const large = (id: string) => ({ id, status: 'completed', prompt: 'p'.repeat(60_000) }) as TaskView;
    for (let index = 0; index < 600; index += 1) ended.remember('acct_a', large(`gen_${index}`));
    const held = Array.from({ length: 600 }, (_, index) => ended.get(`gen_${index}`, 'acct_a') !== undefined);
    const first = held.indexOf(true);
    expect(first).toBeGreaterThan(0);
    expect(held.slice(first).every(Boolean)).toBe(true);
    expect((600 - first) * JSON.stringify(large('gen_599')).length).toBeLessThanOrEqual(32 * 1024 * 1024);
  });

  it('leaves a task over 64 KB (a very long prompt) to the database', () => {
    const ended = createEndedTasks();
    ended.remember('acct_a', { id: 'gen_1', status: 'completed', prompt: 'p'.repeat(70_000) } as TaskView);
    expect(ended.get('gen_1', 'acct_a')).toBeUndefined();
  });
});
