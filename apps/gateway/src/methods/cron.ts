// `cron.status`, `cron.list`, `cron.add`, `cron.update`, `cron.remove`, `cron.run`, `cron.runs`:
// the scheduler's jobs for operators and the CLI (decision 0019).
import { SchedulerError } from '@switchboard/scheduler';
import { z } from 'zod';
import { type CronService, cronServiceOf } from '../extensions/scheduler/service.ts';
import { GatewayError } from '../gateway-error.ts';
import { defineMethod, type GatewayMethod } from '../protocol/method-contract.ts';
import type { MethodServices } from './context.ts';

/** A scheduler error in the protocol's words, with its own code kept in the details. */
function protocolError(error: unknown): unknown {
  if (!(error instanceof SchedulerError)) return error;
  const code =
    error.code === 'SCHEDULER_JOB_NOT_FOUND'
      ? 'NOT_FOUND'
      : error.code === 'SCHEDULER_JOB_RUNNING' || error.code === 'SCHEDULER_STOPPED'
        ? 'CONFLICT'
        : 'INVALID_PARAMS';
  return new GatewayError(code, error.message, { details: { schedulerCode: error.code } });
}

export function cronMethods(services: MethodServices): GatewayMethod[] {
  async function call<T>(work: (service: CronService) => Promise<T>): Promise<T> {
    const service = cronServiceOf(services.store);
    if (service === undefined)
      throw new GatewayError('CONFLICT', 'the scheduler extension is not set up in this gateway');
    try {
      return await work(service);
    } catch (error) {
      throw protocolError(error);
    }
  }
  const jobId = z.strictObject({ jobId: z.string().min(1) });
  return [
    defineMethod({
      name: 'cron.status',
      scope: 'operator.read',
      params: z.looseObject({}),
      handle: () => call((service) => service.status()),
    }),
    defineMethod({
      name: 'cron.list',
      scope: 'operator.read',
      params: z.looseObject({}),
      handle: () => call(async (service) => ({ jobs: await service.list() })),
    }),
    defineMethod({
      name: 'cron.add',
      scope: 'operator.write',
      params: z.strictObject({ job: z.record(z.string(), z.unknown()) }),
      handle: (params) => call(async (service) => ({ job: await service.add(params.job) })),
    }),
    defineMethod({
      name: 'cron.update',
      scope: 'operator.write',
      params: z.strictObject({ jobId: z.string().min(1), patch: z.record(z.string(), z.unknown()) }),
      handle: (params) =>
        call(async (service) => ({ job: await service.update(params.jobId, params.patch) })),
    }),
    defineMethod({
      name: 'cron.remove',
      scope: 'operator.write',
      params: jobId,
      handle: (params) =>
        call(async (service) => {
          if (!(await service.remove(params.jobId)))
            throw new GatewayError('NOT_FOUND', `no job with id ${params.jobId}`);
          return { removed: true };
        }),
    }),
    defineMethod({
      name: 'cron.run',
      scope: 'operator.write',
      params: jobId,
      handle: (params) => call(async (service) => ({ run: await service.run(params.jobId) })),
    }),
    defineMethod({
      name: 'cron.runs',
      scope: 'operator.read',
      params: z.strictObject({
        jobId: z.string().min(1),
        limit: z.number().int().min(1).max(1000).optional(),
      }),
      handle: (params) =>
        call(async (service) => ({ runs: await service.runs(params.jobId, params.limit ?? 20) })),
    }),
  ];
}
