import { z } from 'zod';

/** The protocol version this gateway speaks (OpenClaw gateway protocol v4). */
export const protocolVersion = 4;
/** Largest frame accepted before the handshake completes. */
export const maxPreAuthFrameBytes: number = 64 * 1024;
/** Largest frame accepted after the handshake (advertised as `policy.maxPayload`). */
export const maxFrameBytes: number = 25 * 1024 * 1024;
/** A slow consumer whose send buffer grows past this is disconnected. */
export const maxBufferedBytes: number = 50 * 1024 * 1024;
export const tickIntervalMs = 30_000;
export const handshakeTimeoutMs = 15_000;

/** WebSocket close codes the gateway uses. */
export const closeCodes = {
  normal: 1000,
  protocolMismatch: 1002,
  policyViolation: 1008,
  messageTooBig: 1009,
  serviceRestart: 1012,
} as const;

export const requestFrameSchema = z.object({
  type: z.literal('req'),
  id: z.string().min(1).max(256),
  method: z.string().min(1).max(256),
  params: z.unknown().optional(),
  traceparent: z.string().max(128).optional(),
});

/** Client ids OpenClaw's gateway accepts; kept identical so clients work both ways. */
const clientIds = [
  'webchat-ui',
  'openclaw-control-ui',
  'openclaw-browser-copilot',
  'openclaw-tui',
  'webchat',
  'cli',
  'gateway-client',
  'openclaw-macos',
  'openclaw-linux',
  'openclaw-ios',
  'openclaw-watchos',
  'openclaw-android',
  'node-host',
  'openclaw-worker',
  'test',
  'fingerprint',
  'openclaw-probe',
] as const;

const clientModes = ['webchat', 'cli', 'ui', 'backend', 'node', 'worker', 'probe', 'test'] as const;

export const connectParamsSchema = z.object({
  minProtocol: z.number().int(),
  maxProtocol: z.number().int(),
  client: z
    .object({
      id: z.enum(clientIds),
      mode: z.enum(clientModes),
      version: z.string().min(1),
      platform: z.string().min(1),
      displayName: z.string().optional(),
      buildId: z.string().optional(),
      deviceFamily: z.string().optional(),
      modelIdentifier: z.string().optional(),
      timeZone: z.string().optional(),
      instanceId: z.string().optional(),
    })
    .loose(),
  role: z.enum(['operator', 'node', 'worker']).optional(),
  scopes: z.array(z.string()).optional(),
  caps: z.array(z.string()).optional(),
  commands: z.array(z.string()).optional(),
  permissions: z.record(z.string(), z.unknown()).optional(),
  pathEnv: z.string().optional(),
  auth: z
    .object({
      token: z.string().optional(),
      password: z.string().optional(),
      deviceToken: z.string().optional(),
      bootstrapToken: z.string().optional(),
      approvalRuntimeToken: z.string().optional(),
      agentRuntimeIdentityToken: z.string().optional(),
    })
    .optional(),
  device: z
    .object({
      id: z.string().min(1),
      publicKey: z.string().min(1),
      signature: z.string().min(1),
      signedAt: z.number(),
      nonce: z.string().optional(),
    })
    .optional(),
  locale: z.string().optional(),
  userAgent: z.string().optional(),
});

export type ConnectParams = z.infer<typeof connectParamsSchema>;

/** Formats the first zod issue as `at /path: message`, the style OpenClaw's clients log. */
export function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (issue === undefined) return 'invalid';
  const path = issue.path.length === 0 ? '' : ` at /${issue.path.map(String).join('/')}`;
  return `${issue.message}${path}`;
}
