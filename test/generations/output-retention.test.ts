// The one retention rule the task body, /files/ and the sweep share: a completed task's outputs expire
// OUTPUT_RETENTION_DAYS after it completed; 0 keeps them forever; once deleted, never later than that.
import { describe, expect, it } from 'vitest';
import { outputsExpireAt, retainedSince } from '../../src/generations/output-retention.ts';

const completedAt = new Date('2026-11-01T12:00:00.000Z');
const completed = { status: 'completed' as const, outputs: ['http://x/files/gen_a/output-0.png'], completedAt };
const at = (iso: string) => new Date(iso);

describe('outputsExpireAt', () => {
  it.each<[string, Parameters<typeof outputsExpireAt>[0], number, Date | null]>([
    [
      'completed: completed_at + the retention',
      { ...completed, outputsDeletedAt: null },
      30,
      at('2026-12-01T12:00:00.000Z'),
    ],
    ['kept forever (0)', { ...completed, outputsDeletedAt: null }, 0, null],
    ['running', { status: 'processing', outputs: [], completedAt: null, outputsDeletedAt: null }, 30, null],
    ['failed', { status: 'failed', outputs: [], completedAt, outputsDeletedAt: null }, 30, null],
    ['completed without outputs', { ...completed, outputs: [], outputsDeletedAt: null }, 30, null],
    [
      'deleted after its expiry: the expiry still',
      { ...completed, outputsDeletedAt: at('2026-12-01T13:00:00.000Z') },
      30,
      at('2026-12-01T12:00:00.000Z'),
    ],
    [
      'deleted, then the retention grew: when they went',
      { ...completed, outputsDeletedAt: at('2026-11-08T12:05:00.000Z') },
      90,
      at('2026-11-08T12:05:00.000Z'),
    ],
    [
      'deleted, then kept forever: when they went',
      { ...completed, outputsDeletedAt: at('2026-11-08T12:05:00.000Z') },
      0,
      at('2026-11-08T12:05:00.000Z'),
    ],
  ])('%s', (_name, task, retentionDays, expected) => {
    expect(outputsExpireAt(task, { retentionDays })).toEqual(expected);
  });
});

describe('retainedSince', () => {
  it('is `retention` days before now: tasks ended then or earlier are swept; none with 0', () => {
    const now = at('2026-12-01T12:00:00.000Z');
    expect(retainedSince({ retentionDays: 30 }, now)).toEqual(completedAt);
    expect(retainedSince({ retentionDays: 0 }, now)).toBeNull();
  });
});
