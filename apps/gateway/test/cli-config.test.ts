// `switchboard config validate` names every wrong key (issue 17, items 3 and 8): typos next
// to type errors, typos alone, typos inside a channel's and a plugin's config, plugins that
// cannot load; errors and warnings together, each with its key path; documented exit codes.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type CliIo, exitCodes, runCli } from '../src/cli/main.ts';

const guardPlugin = join(import.meta.dirname, 'fixtures', 'guard-plugin.ts');

async function validate(config: string, ...flags: string[]) {
  const state = mkdtempSync(join(tmpdir(), 'switchboard-cli-validate-'));
  writeFileSync(join(state, 'switchboard.json'), config);
  const out: string[] = [];
  const error: string[] = [];
  const io: CliIo = { out: (text) => out.push(text), error: (text) => error.push(text), environment: {} };
  const code = await runCli(['config', 'validate', '--state-dir', state, ...flags], io);
  return { code, stdout: out.join(''), stderr: error.join(''), file: join(state, 'switchboard.json') };
}

describe('switchboard config validate', () => {
  it('reports a typo next to a type error: both, labelled error and warning, with the suggestion', async () => {
    const result = await validate(`{ gateway: { port: 'eighty' }, agents: { defualts: {} } }`);
    expect(result.code).toBe(exitCodes.invalidConfig);
    expect(result.stderr).toContain(`${result.file} is invalid: 1 error, 1 warning`);
    expect(result.stderr).toMatch(/^ {2}error {3}gateway\.port: expected number, got string$/m);
    expect(result.stderr).toMatch(
      /^ {2}warning agents\.defualts: unknown key, ignored \(did you mean agents\.defaults\?\)$/m,
    );
  });

  it('does not call a config with typos "valid": it lists them with suggestions (exit 0; 5 with --strict)', async () => {
    const config = `{ agents: { defualts: { model: 'anthropic/claude-sonnet-4-6' } } }`;
    const result = await validate(config);
    expect(result.code).toBe(exitCodes.ok);
    expect(result.stdout).not.toContain('is valid');
    expect(result.stdout).toContain(`${result.file} has no errors, but 1 warning`);
    expect(result.stdout).toContain('agents.defualts: unknown key, ignored (did you mean agents.defaults?)');
    expect((await validate(config, '--strict')).code).toBe(exitCodes.invalidConfig);
    const json = JSON.parse((await validate(config, '--json')).stdout);
    expect(json).toMatchObject({ ok: true, errors: 0, warnings: 1 });
    expect(json.problems).toEqual([
      {
        path: 'agents.defualts',
        message: 'unknown key, ignored (did you mean agents.defaults?)',
        severity: 'warning',
        suggestion: 'agents.defaults',
      },
    ]);
  });

  it('flags a typo inside channels.telegram', async () => {
    const result = await validate(`{ channels: { telegram: { botToken: '123:abc', botTokn: '123:abc' } } }`);
    expect(result.code).toBe(exitCodes.ok);
    expect(result.stdout).toContain(
      'channels.telegram.botTokn: unknown key, ignored (did you mean channels.telegram.botToken?)',
    );
    const missing = await validate(`{ channels: { telegram: { botTokn: '123:abc' } } }`);
    expect(missing.code).toBe(exitCodes.invalidConfig);
    expect(missing.stderr).toMatch(/error {3}channels\.telegram\.botToken: /);
    expect(missing.stderr).toMatch(
      /warning channels\.telegram\.botTokn: .*did you mean channels\.telegram\.botToken/,
    );
  });

  it("flags a typo inside a plugin's config as an error, by the plugin's own schema", async () => {
    const result = await validate(
      JSON.stringify({
        plugins: { load: { paths: [guardPlugin] }, entries: { guard: { config: { blockTols: ['exec'] } } } },
      }),
    );
    expect(result.code).toBe(exitCodes.invalidConfig);
    expect(result.stderr).toContain(
      'error   plugins.entries.guard.config.blockTols: unknown key (did you mean plugins.entries.guard.config.blockTools?)',
    );
    const fixed = await validate(
      JSON.stringify({
        plugins: { load: { paths: [guardPlugin] }, entries: { guard: { config: { blockTools: ['exec'] } } } },
      }),
    );
    expect(fixed).toMatchObject({ code: exitCodes.ok, stdout: `${fixed.file} is valid.\n` });
  });

  it('reports a plugin that cannot be loaded: an error, or a warning when optional', async () => {
    const missing = await validate(`{ plugins: { entries: { ghost: {} } } }`);
    expect(missing.code).toBe(exitCodes.invalidConfig);
    expect(missing.stderr).toMatch(
      /error {3}plugins\.entries\.ghost: plugin cannot be loaded: .*not installed/,
    );
    const optional = await validate(`{ plugins: { entries: { ghost: { optional: true } } } }`);
    expect(optional.code).toBe(exitCodes.ok);
    expect(optional.stdout).toMatch(
      /warning plugins\.entries\.ghost: optional plugin not loaded, the gateway runs without it: /,
    );
  });

  it('exits 7 when the file cannot be read or parsed, and documents its exit codes in --help', async () => {
    expect((await validate('{ gateway: { port: 1 ')).code).toBe(exitCodes.unreadableConfig);
    const help: string[] = [];
    const code = await runCli(['config', 'validate', '--help'], {
      out: (text) => help.push(text),
      error: () => undefined,
      environment: {},
    });
    expect(code).toBe(exitCodes.ok);
    expect(help.join('')).toMatch(
      /Exit codes:\n {2}0 {2}no errors.*\n {2}5 {2}errors.*\n {2}7 {2}the file is missing/,
    );
  });

  it('refuses to start the gateway when a configured plugin cannot be loaded (exit 5), naming its key path', async () => {
    const state = mkdtempSync(join(tmpdir(), 'switchboard-cli-run-plugin-'));
    writeFileSync(
      join(state, 'switchboard.json'),
      JSON.stringify({ gateway: { port: 0 }, plugins: { entries: { ghost: {} } } }),
    );
    const error: string[] = [];
    const code = await runCli(['gateway', 'run', '--state-dir', state], {
      out: () => undefined,
      error: (text) => error.push(text),
      environment: {},
    });
    expect(code).toBe(exitCodes.invalidConfig);
    expect(error.join('')).toMatch(/plugins\.entries\.ghost: plugin cannot be loaded: /);
  });
});
