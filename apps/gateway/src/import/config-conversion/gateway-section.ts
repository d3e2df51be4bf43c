// OpenClaw's `gateway` section: port, bind (custom hosts become the address itself), auth
// (password mode becomes token mode), the Control UI's origins (WebChat's now) and reload.
import { isRecord } from '../openclaw-source.ts';
import { copyIfPresent } from './key-notes.ts';
import type { Mark } from './types.ts';

/** Converts `gateway` into `config.gateway`. */
export function convertGateway(
  raw: Record<string, unknown>,
  config: Record<string, unknown>,
  mark: Mark,
): void {
  const gateway = raw.gateway;
  if (!isRecord(gateway)) return;
  const target: Record<string, unknown> = {};
  if (typeof gateway.port === 'number') {
    target.port = gateway.port;
    mark('gateway.port', { disposition: 'mapped', target: 'gateway.port' });
  }
  if (typeof gateway.bind === 'string') {
    if (gateway.bind === 'loopback' || gateway.bind === 'lan') {
      target.bind = gateway.bind;
      mark('gateway.bind', { disposition: 'mapped', target: 'gateway.bind' });
    } else if (gateway.bind === 'custom' && typeof gateway.customBindHost === 'string') {
      target.bind = gateway.customBindHost;
      mark('gateway.bind', {
        disposition: 'changed',
        target: 'gateway.bind',
        message: 'Switchboard takes the address itself in gateway.bind',
      });
      mark('gateway.customBindHost', { disposition: 'changed', target: 'gateway.bind' });
    } else {
      target.bind = 'loopback';
      mark('gateway.bind', {
        disposition: 'changed',
        target: 'gateway.bind',
        message: `"${gateway.bind}" has no Switchboard equivalent: the gateway listens on loopback; put a reverse proxy or tunnel in front to reach it from elsewhere`,
      });
    }
  }
  const auth = gateway.auth;
  if (isRecord(auth)) {
    const targetAuth: Record<string, unknown> = {};
    if (auth.mode === 'token' || auth.mode === 'none') {
      targetAuth.mode = auth.mode;
      mark('gateway.auth.mode', { disposition: 'mapped', target: 'gateway.auth.mode' });
    } else if (auth.mode === 'password') {
      targetAuth.mode = 'token';
      mark('gateway.auth.mode', {
        disposition: 'changed',
        target: 'gateway.auth.mode',
        message: 'password mode becomes token mode: clients send the old password as the gateway token',
      });
    }
    if (typeof auth.token === 'string') {
      targetAuth.token = auth.token;
      mark('gateway.auth.token', { disposition: 'mapped', target: 'gateway.auth.token' });
    } else if (typeof auth.password === 'string') {
      targetAuth.token = auth.password;
      mark('gateway.auth.password', {
        disposition: 'changed',
        target: 'gateway.auth.token',
        message: 'the password is now the gateway token',
      });
    }
    if (Object.keys(targetAuth).length > 0) target.auth = { mode: 'token', ...targetAuth };
  }
  if (isRecord(gateway.controlUi) && Array.isArray(gateway.controlUi.allowedOrigins)) {
    target.controlUi = { allowedOrigins: gateway.controlUi.allowedOrigins };
    mark('gateway.controlUi.allowedOrigins', {
      disposition: 'changed',
      target: 'gateway.controlUi.allowedOrigins',
      message: 'the origins allowed to open WebChat, which replaces the Control UI',
    });
  }
  if (isRecord(gateway.reload)) {
    const reload: Record<string, unknown> = {};
    copyIfPresent(gateway.reload, reload, ['debounceMs'], 'gateway.reload', 'gateway.reload', mark);
    if (typeof gateway.reload.mode === 'string') {
      reload.mode = gateway.reload.mode;
      const restarts = gateway.reload.mode === 'hybrid' || gateway.reload.mode === 'restart';
      mark('gateway.reload.mode', {
        disposition: restarts ? 'changed' : 'mapped',
        target: 'gateway.reload.mode',
        ...(restarts
          ? {
              message:
                'Switchboard never restarts itself: changes that need a restart are reported and wait for one',
            }
          : {}),
      });
    }
    if (Object.keys(reload).length > 0) target.reload = reload;
  }
  if (gateway.mode === 'remote')
    mark('gateway.mode', {
      disposition: 'unsupported',
      message:
        'remote mode is not supported: run the Switchboard gateway here, or point the CLI at it with --url',
    });
  if (Object.keys(target).length > 0) config.gateway = target;
}
