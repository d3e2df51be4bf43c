// @switchboard/routing: OpenClaw-compatible bindings, the tiered agent resolver, session
// keys and identity links.

// Config: schemas, types and validation.
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
// Normalization.
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
// The resolver.
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
// Session keys: building.
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
// Session keys: reading.
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
