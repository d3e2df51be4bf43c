// The doctor's checks as the running gateway sees them (its `doctor.check` answer): the
// gateway itself, model credentials and endpoints, channels, the queue and cooldowns.
import type { ModelCredentialCheck } from '../../runtime/model-credentials.ts';
import type { CommandHelpers } from '../command-context.ts';
import { GatewayRequestError } from '../gateway-client.ts';
import type { Check } from './check.ts';

/** What `doctor.check` answers (see methods/system.ts). */
export interface GatewayDoctorReport {
  readonly runtimeVersion: string;
  readonly pid: number;
  readonly uptimeMs: number;
  readonly models: readonly ModelCredentialCheck[];
  readonly endpoints: ReadonlyArray<{
    baseUrl: string;
    reachable: boolean;
    status?: number;
    error?: string;
    durationMs: number;
  }>;
  readonly channels: ReadonlyArray<{
    channel: string;
    accountId: string;
    status: { state: string; detail?: string; error?: string };
  }>;
  readonly queue: {
    running: number;
    waiting: number;
    queuedMessages: number;
    pendingInbound: number;
    notAnswered: Readonly<Record<string, number>>;
  };
  readonly cooldowns: ReadonlyArray<{
    id: string;
    state: string;
    disabled?: { reason: string; remainingMs: number };
    models: ReadonlyArray<{ model: string; reason: string; remainingMs: number }>;
  }>;
  readonly profileCount: number;
  readonly shuttingDown: boolean;
}

/** "42 s", "5 min", "3 h". */
function duration(milliseconds: number): string {
  const seconds = Math.max(0, Math.ceil(milliseconds / 1000));
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
  return `${Math.round(seconds / 3600)} h`;
}

/** The checks a running gateway answered (`doctor.check`). */
export function gatewayChecks(report: GatewayDoctorReport): Check[] {
  const source = 'gateway';
  const checks: Check[] = [
    {
      name: 'gateway',
      ok: !report.shuttingDown,
      warning: true,
      detail: `running and answering (Switchboard ${report.runtimeVersion}, pid ${report.pid}, up ${duration(report.uptimeMs)})${report.shuttingDown ? ', shutting down' : ''}`,
      source,
    },
  ];
  for (const model of report.models)
    checks.push({
      name: 'model credentials',
      ok: model.ok,
      detail: model.ok ? model.detail : `${model.reference}: ${model.detail}`,
      source,
    });
  for (const endpoint of report.endpoints)
    checks.push({
      name: 'model endpoint',
      ok: endpoint.reachable,
      detail: endpoint.reachable
        ? `${endpoint.baseUrl} answers (HTTP ${endpoint.status} in ${endpoint.durationMs} ms)`
        : `${endpoint.baseUrl} is not reachable from the gateway (${endpoint.error ?? 'no answer'}): turns will fail`,
      source,
    });
  for (const channel of report.channels) {
    const { state, detail, error } = channel.status;
    checks.push({
      name: `channel ${channel.channel}/${channel.accountId}`,
      ok: state === 'connected',
      warning: state !== 'error',
      detail: `${state}${detail === undefined ? '' : ` (${detail})`}${error === undefined ? '' : `: ${error}`}`,
      source,
    });
  }
  const queue = report.queue;
  const notAnswered = Object.entries(queue.notAnswered);
  checks.push({
    name: 'queue',
    ok: true,
    detail:
      `${queue.running} running, ${queue.waiting} waiting for a slot, ${queue.queuedMessages} messages queued, ${queue.pendingInbound} received and not yet answered` +
      (notAnswered.length === 0
        ? ''
        : `; not answered since start: ${notAnswered.map(([reason, count]) => `${reason} ${count}`).join(', ')}`),
    source,
  });
  const blocked = report.cooldowns.flatMap((profile) => [
    ...(profile.state === 'no_credential' ? [`${profile.id} has no secret`] : []),
    ...(profile.disabled === undefined
      ? []
      : [
          `${profile.id} disabled (${profile.disabled.reason}) for ${duration(profile.disabled.remainingMs)}`,
        ]),
    ...profile.models.map(
      (window) =>
        `${profile.id} cooling down for ${window.model} (${window.reason}) for ${duration(window.remainingMs)}`,
    ),
  ]);
  checks.push({
    name: 'cooldowns',
    ok: blocked.length === 0,
    warning: true,
    detail:
      blocked.length > 0
        ? blocked.join('; ')
        : report.profileCount === 0
          ? 'none (no auth profiles: provider keys are used)'
          : `none: all ${report.profileCount} auth profile(s) ready`,
    source,
  });
  return checks;
}

/** What the running gateway said: its report (undefined when none answered, or one too old) and the checks that came with it. */
export interface GatewayView {
  readonly report: GatewayDoctorReport | undefined;
  readonly checks: Check[];
}

/**
 * Asks the gateway at `url` for its own view (`doctor.check`) and the skills, MCP and sandbox
 * checks. A gateway that does not answer, or one from before `doctor.check`, gives a warning
 * check instead of a report; any other failure of a request is thrown.
 */
export async function askGateway(helpers: CommandHelpers, url: string): Promise<GatewayView> {
  const checks: Check[] = [];
  let report: GatewayDoctorReport | undefined;
  try {
    await helpers.withClient(async (client) => {
      try {
        report = (await client.request('doctor.check', {}, { timeoutMs: 15_000 })) as unknown as
          | GatewayDoctorReport
          | undefined;
        const skills = await (await import('../skills-command.ts')).skillsDoctorCheck(client);
        if (skills !== undefined) checks.push(skills);
        const mcp = await (await import('../mcp-command.ts')).mcpDoctorCheck(client);
        if (mcp !== undefined) checks.push(mcp);
        const sandbox = await (await import('../sandbox-command.ts')).sandboxDoctorCheck(client);
        if (sandbox !== undefined) checks.push(sandbox);
      } catch (error) {
        if (!(error instanceof GatewayRequestError && error.detailCode === 'UNKNOWN_METHOD')) throw error;
        // A gateway from before doctor.check: it answers, but the model checks read the config.
        const health = await client.request('health', {}, { timeoutMs: 10_000 });
        checks.push({
          name: 'gateway',
          ok: health.ok === true,
          warning: true,
          detail: `running and answering at ${url}, but too old to report what it sees (no doctor.check); the model and channel checks read the config`,
          source: 'gateway',
        });
      }
    });
  } catch (error) {
    checks.push({
      name: 'gateway',
      ok: false,
      warning: true,
      detail: `not reachable: ${(error as Error).message}; the model and channel checks read the config and this shell's environment instead`,
      source: 'gateway',
    });
  }
  return { report, checks };
}
