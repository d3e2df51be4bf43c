// The state the parts of the fake Discord share: gateway sessions, guilds, hosted files,
// pending faults and what the bot token currently is.
import type { WebSocket } from 'ws';
import type { DiscordApiGuild, DiscordApiMember } from './types.ts';

export interface Session {
  readonly id: string;
  readonly intents: number;
  sequence: number;
  socket: WebSocket | undefined;
  ready: boolean;
  resumes: number;
  readonly events: Array<{ s: number; t: string; d: unknown }>;
}

export interface PendingFault<Fault> {
  fault: Fault;
  remaining: number;
}

export interface GuildState {
  readonly api: DiscordApiGuild;
  readonly members: Map<string, DiscordApiMember>;
  readonly botRoleId: string;
}

export interface HostedFile {
  readonly bytes: Uint8Array;
  readonly contentType: string;
}

/** The token the fake accepts and the developer-portal switches; the handle changes them. */
export interface DiscordAuth {
  token: string;
  /** False after `revokeToken()` until `setToken()`. */
  tokenValid: boolean;
  /** The Message Content privileged intent is enabled "in the developer portal". */
  messageContentAllowed: boolean;
}
