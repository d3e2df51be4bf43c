/**
 * The PostgreSQL schema as ordered migrations, recorded in `switchboard_schema_migrations`
 * (component `sessions`). Columns mirror the SQLite store so both share one row mapping;
 * times are milliseconds (BIGINT), JSON is TEXT (read back exactly as written). Never edit a
 * released migration: add the next one.
 */

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

export const schemaComponent = 'sessions';

/** The first key of the two-int advisory locks this package takes ('SW'). */
export const advisoryLockClass = 21335;
/** The second key of the migration lock (instance locks use their instance id, ≥ 1). */
export const migrationLockId = 0;

/** Created before anything else, outside the versioned migrations. */
export const bootstrapSql = `
CREATE TABLE IF NOT EXISTS switchboard_schema_migrations (
  component  TEXT   NOT NULL,
  version    INTEGER NOT NULL,
  name       TEXT   NOT NULL,
  applied_at BIGINT NOT NULL,
  PRIMARY KEY (component, version)
);
`;

export const migrations: readonly Migration[] = [
  {
    version: 1,
    name: 'sessions, transcripts, inbound journal, delivery receipts, state records, store instances',
    sql: `
CREATE TABLE sessions (
  session_key           TEXT    COLLATE "C" PRIMARY KEY,
  session_id            TEXT    NOT NULL UNIQUE,
  agent_id              TEXT    NOT NULL,
  created_at            BIGINT  NOT NULL,
  updated_at            BIGINT  NOT NULL,
  session_started_at    BIGINT  NOT NULL,
  last_interaction_at   BIGINT,
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
  queue_debounce_ms     BIGINT,
  queue_cap             BIGINT,
  queue_drop            TEXT,
  input_tokens          BIGINT  NOT NULL DEFAULT 0,
  output_tokens         BIGINT  NOT NULL DEFAULT 0,
  cache_read_tokens     BIGINT  NOT NULL DEFAULT 0,
  cache_write_tokens    BIGINT  NOT NULL DEFAULT 0,
  context_tokens        BIGINT,
  cost_usd              DOUBLE PRECISION NOT NULL DEFAULT 0,
  compaction_count      INTEGER NOT NULL DEFAULT 0,
  metadata              TEXT    NOT NULL DEFAULT '{}',
  activity_minute       BIGINT  NOT NULL
);
CREATE INDEX sessions_by_activity ON sessions (activity_minute DESC, updated_at DESC, session_key DESC);
CREATE INDEX sessions_by_agent ON sessions (agent_id, activity_minute DESC);
CREATE INDEX sessions_by_label ON sessions (label, activity_minute DESC) WHERE label IS NOT NULL;

CREATE TABLE transcripts (
  transcript_id            BIGSERIAL PRIMARY KEY,
  session_id               TEXT    NOT NULL UNIQUE,
  session_key              TEXT    NOT NULL,
  agent_id                 TEXT    NOT NULL,
  created_at               BIGINT  NOT NULL,
  next_sequence            BIGINT  NOT NULL DEFAULT 1,
  entry_count              BIGINT  NOT NULL DEFAULT 0,
  byte_count               BIGINT  NOT NULL DEFAULT 0,
  last_compaction_sequence BIGINT,
  archived_at              BIGINT,
  archive_reason           TEXT
);
CREATE INDEX transcripts_by_key ON transcripts (session_key, created_at);
CREATE INDEX transcripts_archived ON transcripts (archived_at) WHERE archived_at IS NOT NULL;

CREATE TABLE transcript_entries (
  transcript_id BIGINT  NOT NULL REFERENCES transcripts (transcript_id) ON DELETE CASCADE,
  sequence      BIGINT  NOT NULL,
  type          TEXT    NOT NULL,
  created_at    BIGINT  NOT NULL,
  body          TEXT    NOT NULL,
  PRIMARY KEY (transcript_id, sequence)
);

-- owner_id: the store instance that journaled the message or took it over; only that
-- instance resumes it while it is alive (see instances below).
CREATE TABLE inbound_journal (
  channel     TEXT    NOT NULL,
  account_id  TEXT    NOT NULL,
  message_id  TEXT    NOT NULL,
  state       TEXT    NOT NULL,
  session_key TEXT,
  received_at BIGINT  NOT NULL,
  updated_at  BIGINT  NOT NULL,
  attempts    INTEGER NOT NULL DEFAULT 0,
  error       TEXT,
  payload     TEXT,
  owner_id    TEXT,
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
  claimed_at          BIGINT  NOT NULL,
  updated_at          BIGINT  NOT NULL,
  sent_at             BIGINT,
  platform_message_id TEXT,
  error               TEXT,
  details             TEXT    NOT NULL DEFAULT '{}'
);
CREATE INDEX delivery_by_updated ON delivery_receipts (updated_at);

CREATE TABLE state_records (
  namespace  TEXT    NOT NULL,
  key        TEXT    COLLATE "C" NOT NULL,
  value      TEXT    NOT NULL,
  updated_at BIGINT  NOT NULL,
  expires_at BIGINT,
  PRIMARY KEY (namespace, key)
);
CREATE INDEX state_expiring ON state_records (expires_at) WHERE expires_at IS NOT NULL;

-- One row per open store (gateway replica). An instance is alive exactly while its
-- dedicated connection holds the advisory lock (${advisoryLockClass}, instance_id): PostgreSQL
-- drops the lock when that connection ends, whether the process exited, was killed or
-- lost the network (then after idle_session_timeout or TCP keepalive).
CREATE TABLE store_instances (
  instance_id SERIAL  PRIMARY KEY,
  owner_id    TEXT    NOT NULL UNIQUE,
  hostname    TEXT    NOT NULL,
  pid         INTEGER NOT NULL,
  started_at  BIGINT  NOT NULL
);

CREATE FUNCTION switchboard_owner_alive(owner TEXT) RETURNS BOOLEAN LANGUAGE sql STABLE AS $$
  SELECT EXISTS (
    SELECT 1 FROM store_instances i JOIN pg_locks l
      ON l.locktype = 'advisory' AND l.classid = ${advisoryLockClass} AND l.objid = i.instance_id::oid
     AND l.objsubid = 2 AND l.granted
     AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
    WHERE i.owner_id = owner)
$$;
`,
  },
  {
    version: 2,
    name: 'session leases (one replica runs a session at a time)',
    sql: `
-- The replica that runs a session's turns now. A lease is held while its owner is alive
-- (switchboard_owner_alive) and has work for the session; the owner deletes it when the
-- session goes idle. A lease of a gone owner is free: the next admission takes it.
CREATE TABLE session_leases (
  session_key TEXT   COLLATE "C" PRIMARY KEY,
  owner_id    TEXT   NOT NULL,
  acquired_at BIGINT NOT NULL
);
CREATE INDEX session_leases_by_owner ON session_leases (owner_id);
CREATE INDEX inbound_unfinished_by_session ON inbound_journal (session_key, received_at)
  WHERE state IN ('received', 'queued', 'running');
`,
  },
  {
    version: 3,
    name: 'channel leases (one consumer per channel account, with a fencing token)',
    sql: `
-- The replica that consumes a polling channel account (Telegram long polling, a Discord
-- gateway connection, …). fencing_token grows on every change of owner; offset commits and
-- sends carry the token they were started under and are refused once it is stale.
CREATE TABLE channel_leases (
  channel       TEXT   NOT NULL,
  account_id    TEXT   NOT NULL,
  owner_id      TEXT   NOT NULL,
  fencing_token BIGINT NOT NULL,
  acquired_at   BIGINT NOT NULL,
  PRIMARY KEY (channel, account_id)
);
`,
  },
];

/** The schema version this build writes. */
export const latestSchemaVersion: number = migrations[migrations.length - 1]?.version ?? 0;
