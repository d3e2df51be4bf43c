/**
 * The SQLite schema, as an ordered list of migrations. Each migration runs in its own
 * transaction and is recorded in `schema_migrations` (component `sessions`), so other
 * Switchboard components can keep their own versions in the same database file later.
 * Never edit a released migration: add the next one.
 */

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

/** Created before anything else (outside the versioned migrations): bookkeeping and the lock. */
export const bootstrapSql = `
CREATE TABLE IF NOT EXISTS schema_migrations (
  component  TEXT    NOT NULL,
  version    INTEGER NOT NULL,
  name       TEXT    NOT NULL,
  applied_at INTEGER NOT NULL,
  PRIMARY KEY (component, version)
);
CREATE TABLE IF NOT EXISTS instance_lock (
  id           INTEGER PRIMARY KEY CHECK (id = 1),
  owner_id     TEXT    NOT NULL,
  pid          INTEGER NOT NULL,
  hostname     TEXT    NOT NULL,
  boot_id      TEXT,
  process_start TEXT,
  started_at   INTEGER NOT NULL,
  heartbeat_at INTEGER NOT NULL
);
`;

export const schemaComponent = 'sessions';

export const migrations: readonly Migration[] = [
  {
    version: 1,
    name: 'sessions, transcripts, inbound journal, delivery receipts, state records',
    sql: `
CREATE TABLE sessions (
  session_key           TEXT    PRIMARY KEY,
  session_id            TEXT    NOT NULL UNIQUE,
  agent_id              TEXT    NOT NULL,
  created_at            INTEGER NOT NULL,
  updated_at            INTEGER NOT NULL,
  session_started_at    INTEGER NOT NULL,
  last_interaction_at   INTEGER,
  revision              INTEGER NOT NULL DEFAULT 1,
  chat_type             TEXT,
  channel               TEXT,
  label                 TEXT,
  display_name          TEXT,
  last_route            TEXT,
  parent_session_key    TEXT,
  provider_override     TEXT,
  model_override        TEXT,
  auth_profile_override TEXT,
  model_provider        TEXT,
  model                 TEXT,
  thinking_level        TEXT,
  queue_mode            TEXT,
  queue_debounce_ms     INTEGER,
  queue_cap             INTEGER,
  queue_drop            TEXT,
  input_tokens          INTEGER NOT NULL DEFAULT 0,
  output_tokens         INTEGER NOT NULL DEFAULT 0,
  cache_read_tokens     INTEGER NOT NULL DEFAULT 0,
  cache_write_tokens    INTEGER NOT NULL DEFAULT 0,
  context_tokens        INTEGER,
  cost_usd              REAL    NOT NULL DEFAULT 0,
  compaction_count      INTEGER NOT NULL DEFAULT 0,
  metadata              TEXT    NOT NULL DEFAULT '{}',
  activity_minute       INTEGER NOT NULL
);
-- Listing order is updated_at, but the indexes hold updated_at by the minute: an append
-- rewrites the row without touching any index unless the minute changed (fewer pages per
-- durable commit); rows within one minute are sorted on the fly.
CREATE INDEX sessions_by_activity ON sessions (activity_minute DESC);
CREATE INDEX sessions_by_agent ON sessions (agent_id, activity_minute DESC);
CREATE INDEX sessions_by_label ON sessions (label, activity_minute DESC) WHERE label IS NOT NULL;

CREATE TABLE transcripts (
  transcript_id            INTEGER PRIMARY KEY,
  session_id               TEXT    NOT NULL UNIQUE,
  session_key              TEXT    NOT NULL,
  agent_id                 TEXT    NOT NULL,
  created_at               INTEGER NOT NULL,
  next_sequence            INTEGER NOT NULL DEFAULT 1,
  entry_count              INTEGER NOT NULL DEFAULT 0,
  byte_count               INTEGER NOT NULL DEFAULT 0,
  last_compaction_sequence INTEGER,
  archived_at              INTEGER,
  archive_reason           TEXT
);
CREATE INDEX transcripts_by_key ON transcripts (session_key, created_at);
CREATE INDEX transcripts_archived ON transcripts (archived_at) WHERE archived_at IS NOT NULL;

CREATE TABLE transcript_entries (
  transcript_id INTEGER NOT NULL REFERENCES transcripts (transcript_id) ON DELETE CASCADE,
  sequence      INTEGER NOT NULL,
  type          TEXT    NOT NULL,
  created_at    INTEGER NOT NULL,
  body          TEXT    NOT NULL,
  PRIMARY KEY (transcript_id, sequence)
);

CREATE TABLE inbound_journal (
  channel     TEXT    NOT NULL,
  account_id  TEXT    NOT NULL,
  message_id  TEXT    NOT NULL,
  state       TEXT    NOT NULL,
  session_key TEXT,
  received_at INTEGER NOT NULL,
  updated_at  INTEGER NOT NULL,
  attempts    INTEGER NOT NULL DEFAULT 0,
  error       TEXT,
  payload     TEXT,
  PRIMARY KEY (channel, account_id, message_id)
);
CREATE INDEX inbound_unfinished ON inbound_journal (received_at)
  WHERE state IN ('received', 'queued', 'running');
CREATE INDEX inbound_by_updated ON inbound_journal (updated_at);

CREATE TABLE delivery_receipts (
  idempotency_key     TEXT    PRIMARY KEY,
  state               TEXT    NOT NULL,
  attempts            INTEGER NOT NULL DEFAULT 1,
  owner_id            TEXT    NOT NULL,
  claimed_at          INTEGER NOT NULL,
  updated_at          INTEGER NOT NULL,
  sent_at             INTEGER,
  platform_message_id TEXT,
  error               TEXT,
  details             TEXT    NOT NULL DEFAULT '{}'
);
CREATE INDEX delivery_by_updated ON delivery_receipts (updated_at);

CREATE TABLE state_records (
  namespace  TEXT    NOT NULL,
  key        TEXT    NOT NULL,
  value      TEXT    NOT NULL,
  updated_at INTEGER NOT NULL,
  expires_at INTEGER,
  PRIMARY KEY (namespace, key)
);
CREATE INDEX state_expiring ON state_records (expires_at) WHERE expires_at IS NOT NULL;
`,
  },
];

/** The schema version this build writes. */
export const latestSchemaVersion: number = migrations[migrations.length - 1]?.version ?? 0;
