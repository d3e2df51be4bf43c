// The `switchboard` command as a real process, against `switchboard gateway run` as another
// real process: what a self-hoster's shell and scripts see, exit codes included.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFakeAnthropic, type FakeAnthropic } from '@switchboard/testkit/anthropic';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChildGateway, startChildGateway } from './child-gateway.ts';
import { writeConfig } from './harness.ts';
import { connectClient } from './protocol-client.ts';

const mainPath = join(import.meta.dirname, '..', 'src', 'main.ts');
const token = 'child-process-token-0123456789abcdef';

interface Finished {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function startCli(argv: readonly string[], environment: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, ['--conditions=@switchboard/source', mainPath, ...argv], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...environment },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

function finished(child: ChildProcess): Promise<Finished> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

const run = (argv: readonly string[], environment: NodeJS.ProcessEnv) =>
  finished(startCli(argv, environment));

let model: FakeAnthropic;
let gateway: ChildGateway;
let state: string;
let environment: NodeJS.ProcessEnv;

beforeAll(async () => {
  model = await createFakeAnthropic().start();
  state = mkdtempSync(join(tmpdir(), 'switchboard-cli-process-'));
  writeConfig(state, model.baseURL, {
    gateway: { port: 0, auth: { mode: 'token', token } },
    logging: { level: 'info', file: join(state, 'logs', 'gateway.log') },
  });
  gateway = await startChildGateway({ stateDirectory: state, token });
  environment = { SWITCHBOARD_STATE_DIR: state, SWITCHBOARD_GATEWAY_URL: gateway.url };
}, 40_000);

afterAll(async () => {
  await gateway?.stop();
  await model?.close();
});

describe('switchboard as a process', () => {
  it('gateway run prints where it listens and where WebChat is', async () => {
    const deadline = Date.now() + 5000;
    while (!gateway.output.join('').includes('WebChat:') && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    const output = gateway.output.join('');
    expect(output).toContain(`is listening on ${gateway.url}`);
    expect(output).toContain(`WebChat: ${gateway.httpUrl}/`);
  });

  it('status --json and agent -m work against the running gateway', async () => {
    const status = await run(['status', '--json'], environment);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ runs: { running: 0 }, stateDir: state });
    const agent = await run(['agent', '-m', 'hello from a shell'], environment);
    expect(agent).toMatchObject({ code: 0, stdout: 'hello from a shell\n' });
  });

  it('exits 3 when no gateway runs, 4 on a wrong token, 5 on an invalid config', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as { port: number }).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const [down, wrong, invalid] = await Promise.all([
      run(['status'], { SWITCHBOARD_STATE_DIR: state, SWITCHBOARD_GATEWAY_URL: `ws://127.0.0.1:${port}` }),
      run(['sessions', 'list', '--token', 'not-the-token-at-all-0123'], environment),
      (() => {
        const broken = mkdtempSync(join(tmpdir(), 'switchboard-cli-process-'));
        writeFileSync(join(broken, 'switchboard.json'), '{ "gateway": { "port": -1 } }');
        return run(['gateway', 'run', '--state-dir', broken], {});
      })(),
    ]);
    expect(down.code).toBe(3);
    expect(down.stderr).toContain(`no gateway is running at ws://127.0.0.1:${port}`);
    expect(wrong.code).toBe(4);
    expect(wrong.stderr).toContain('the gateway refused the token (AUTH_TOKEN_MISMATCH)');
    expect(invalid.code).toBe(5);
    expect(invalid.stderr).toContain('gateway.port');
  });

  it('config schema writes the whole schema to a pipe', async () => {
    const schema = await run(['config', 'schema'], {});
    expect(schema.code).toBe(0);
    expect(JSON.parse(schema.stdout)).toMatchObject({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
    });
  });

  it('logs --follow shows new gateway log lines as they are written, and stops on Ctrl-C with exit 0', async () => {
    const printed = await run(['logs'], environment);
    expect(printed.code).toBe(0);
    expect(printed.stdout).toMatch(/ INFO {2}gateway listening on ws:\/\/127\.0\.0\.1:\d+/);

    const follower = startCli(['logs', '--follow'], environment);
    const done = finished(follower);
    let seen = '';
    follower.stdout?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
    });
    const deadline = Date.now() + 10_000;
    while (!seen.includes('gateway listening') && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    // Something new for the log: a client with a bad token.
    const { client } = await connectClient(gateway.url, { token: 'bad-token-for-the-log-0123456' });
    client.close();
    while (!seen.includes('refused a connection with bad credentials') && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    follower.kill('SIGINT');
    const result = await done;
    expect(seen).toContain('refused a connection with bad credentials');
    expect(result.code).toBe(0);
  });
});
