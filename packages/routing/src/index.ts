// @switchboard/routing: OpenClaw-compatible bindings, the tiered agent resolver, session
// keys and identity links.
//
// The curated public API: every value here is documented in the README (the session-key
// helpers are OpenClaw's, for callers porting OpenClaw code); the types are those of the
// documented functions. Caches and the route index stay internal.

// For the gateway's config: schemas, types and validation.
export {
  type AcpBinding,
  type AcpBindingOptions,
  type AgentBinding,
  type AgentEntry,
  type AgentsConfig,
  agentEntrySchema,
  agentsConfigSchema,
  type BindingMatch,
  type BindingPeer,
  type BindingPeerKind,
  type BindingSession,
  bindingMatchSchema,
  bindingPeerSchema,
  bindingSchema,
  bindingSessionSchema,
  bindingsSchema,
  checkRoutingConfig,
  dmScopeSchema,
  type ParsedRoutingConfig,
  parseRoutingConfig,
  type RouteBinding,
  type RoutingConfig,
  type RoutingConfigWarning,
  type RoutingConfigWarningCode,
  routingConfigSchema,
  routingConfigWarningCodes,
  type SessionConfig,
  sessionConfigSchema,
} from './config.ts';
// Errors.
export {
  type RoutingConfigProblem,
  RoutingError,
  type RoutingErrorCode,
  routingErrorCodes,
} from './errors.ts';
// For the gateway and OpenClaw-compatible callers: normalization.
export {
  DEFAULT_ACCOUNT_ID,
  DEFAULT_AGENT_ID,
  DEFAULT_MAIN_KEY,
  normalizeAccountId,
  normalizeAgentId,
  normalizeMainKey,
  normalizePeerKind,
  type RoutePeerKind,
} from './normalize.ts';
// For the gateway: the resolver.
export {
  createRouteResolver,
  type ResolveAgentRouteInput,
  type RouteResolver,
  type RouteResolverOptions,
  resolveAgentRoute,
  resolveInboundLastRouteSessionKey,
} from './resolve-route.ts';
export {
  type ResolvedAgentRoute,
  type RouteIndexStats,
  type RouteMatchedBy,
  resolveDefaultAgentId,
} from './route-index.ts';
// For the gateway and OpenClaw-compatible callers: building session keys.
export {
  buildAgentMainSessionKey,
  buildAgentPeerSessionKey,
  buildAgentSessionKey,
  buildGroupHistoryKey,
  type DmScope,
  deriveLastRoutePolicy,
  type IdentityLinks,
  isCasePreservingPeer,
  type LastRoutePolicy,
  normalizeSessionPeerId,
  type RoutePeer,
  resolveLinkedPeerId,
  resolveThreadSessionKeys,
  type ThreadSessionKeys,
} from './session-key.ts';
// For the gateway and OpenClaw-compatible callers: reading session keys.
export {
  classifySessionKeyShape,
  deriveSessionChatType,
  getSubagentDepth,
  isAcpSessionKey,
  isCronRunSessionKey,
  isCronSessionKey,
  isSubagentSessionKey,
  isUnscopedSessionKeySentinel,
  normalizeSessionKey,
  type ParsedAgentSessionKey,
  parseAgentSessionKey,
  parseThreadSessionSuffix,
  resolveAgentIdFromSessionKey,
  type SessionChatType,
  type SessionKeyShape,
  toAgentRequestSessionKey,
  toAgentStoreSessionKey,
} from './session-key-parse.ts';
