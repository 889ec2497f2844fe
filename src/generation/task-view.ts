// The Generation task as callers see it (spec §2), JSON-safe so the workflow can hold it and answer queries.
import type { Task } from '../generated/prisma/client.ts';
import type { TaskStatus } from '../domain/values.ts';
import { usdNumber } from '../money.ts';

export interface TaskView {
  id: string;
  type: string;
  model: string;
  status: TaskStatus;
  prompt?: string;
  output?: string;
  outputs?: string[];
  error?: string;
  created_at: string;
  updated_at: string;
  completed_at?: string;
  aspect_ratio?: string;
  duration?: number;
  resolution?: string;
  num_outputs?: number;
  /** USD: what was charged once completed, what is reserved before, nothing for a failed task. */
  cost: number;
}

export function taskView(task: Task): TaskView {
  const cost =
    task.status === 'completed' ? (task.costCharged ?? 0n) : task.status === 'failed' ? 0n : task.costReserved;
  const optional = {
    prompt: task.prompt,
    output: task.output,
    error: task.error,
    completed_at: task.completedAt?.toISOString(),
    aspect_ratio: task.aspectRatio,
    duration: task.duration,
    resolution: task.resolution,
    num_outputs: task.numOutputs,
    outputs: task.outputs.length > 0 ? task.outputs : undefined,
  };
  return {
    id: task.id,
    type: task.type,
    model: task.model,
    status: task.status,
    created_at: task.createdAt.toISOString(),
    updated_at: task.updatedAt.toISOString(),
    cost: usdNumber(cost),
    ...Object.fromEntries(Object.entries(optional).filter(([, value]) => value !== null && value !== undefined)),
  };
}
