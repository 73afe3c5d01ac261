// The registry's settings, by Confluent's names (and the spec's brokerstore.* names as aliases).
import { SettingsDefinition, type Setting } from "../platform/settings.ts";
import { logSettings } from "../platform/log.ts";
import { storeSettings } from "../platform/tls.ts";
import { oauthSettings } from "../platform/bearer-auth.ts";
import { corsHeaderSettings, corsSettings } from "../platform/cors.ts";
import { COMPATIBILITY_LEVELS } from "./compatibility.ts";
import { unsupportedRegistrySettings } from "./unsupported-settings.ts";

const listenerPattern = /^https?:\/\/[^\s:/]*(:\d{1,5})?\/?$/i;

const registrySettings: Setting[] = [
  {
    name: "listeners",
    type: "list",
    default: ["http://0.0.0.0:8081"],
    importance: "high",
    doc: "Where the REST API listens: comma-separated `http://host:port` URLs.",
    validate: (v) =>
      (v as string[]).every((l) => listenerPattern.test(l)) ? undefined : "expected URLs like http://0.0.0.0:8081",
  },
  {
    name: "host.name",
    type: "string",
    default: "",
    importance: "high",
    doc: "Host name other instances use to reach this one (defaults to the machine's host name).",
  },
  {
    name: "kafkastore.bootstrap.servers",
    aliases: ["brokerstore.bootstrap.servers"],
    type: "list",
    default: [],
    importance: "high",
    doc: "Kafka brokers storing the schemas (`host:port,...`, `PLAINTEXT://` prefixes accepted). Empty: the embedded broker in `data.dir`.",
  },
  {
    name: "kafkastore.topic",
    aliases: ["brokerstore.topic"],
    type: "string",
    default: "_schemas",
    importance: "high",
    doc: "The compacted single-partition topic holding the schemas.",
    validate: (v) =>
      /^[a-zA-Z0-9._-]{1,249}$/.test(String(v)) ? undefined : "a Kafka topic name ([a-zA-Z0-9._-], 1-249 chars)",
  },
  {
    name: "kafkastore.topic.replication.factor",
    aliases: ["brokerstore.topic.replication.factor"],
    type: "int",
    default: 3,
    min: 1,
    importance: "high",
    doc: "Replication factor of the schemas topic when it is created (capped by the live brokers).",
  },
  {
    name: "kafkastore.timeout.ms",
    type: "int",
    default: 500,
    min: 1,
    importance: "medium",
    doc: "How long a write may take, counted from its request's arrival (time queued behind other writes included) to its record being read back from the store; then it fails with 50002.",
  },
  {
    name: "kafkastore.init.timeout.ms",
    type: "int",
    default: 60000,
    min: 1,
    importance: "medium",
    doc: "How long start-up may take to read the schemas topic to its end.",
  },
  {
    name: "dek.registry.topic",
    type: "string",
    default: "_dek_registry_keys",
    importance: "high",
    doc: "The compacted single-partition topic holding the DEK registry's KEKs and DEKs (Confluent's name and record format).",
    validate: (v) =>
      /^[a-zA-Z0-9._-]{1,249}$/.test(String(v)) ? undefined : "a Kafka topic name ([a-zA-Z0-9._-], 1-249 chars)",
  },
  {
    name: "dek.registry.max.keys",
    type: "int",
    default: 20000,
    min: 0,
    importance: "low",
    doc: "How many KEKs, and how many DEKs, the DEK registry holds at most (then 40972).",
  },
  {
    name: "exporter.config.topic",
    type: "string",
    default: "_exporter_configs",
    importance: "medium",
    doc: "The compacted single-partition topic holding the schema exporters' definitions (Confluent's name).",
    validate: (v) =>
      /^[a-zA-Z0-9._-]{1,249}$/.test(String(v)) ? undefined : "a Kafka topic name ([a-zA-Z0-9._-], 1-249 chars)",
  },
  {
    name: "exporter.state.topic",
    type: "string",
    default: "_exporter_states",
    importance: "medium",
    doc: "The compacted single-partition topic holding each schema exporter's state and offset (Confluent's name).",
    validate: (v) =>
      /^[a-zA-Z0-9._-]{1,249}$/.test(String(v)) ? undefined : "a Kafka topic name ([a-zA-Z0-9._-], 1-249 chars)",
  },
  {
    name: "exporter.max.exporters",
    type: "int",
    default: 10,
    min: 0,
    importance: "low",
    doc: "How many schema exporters the registry holds at most (then 40964).",
  },
  {
    name: "password.encoder.secret",
    type: "password",
    default: "",
    importance: "medium",
    doc: "Encrypts the secrets of the schema exporters' destination configs (passwords, user info, tokens, client secrets, keys) in exporter.config.topic (Confluent's setting; Sluice's AES-256-GCM format). Empty: stored as given. Every instance needs the same one.",
  },
  {
    name: "exporter.poll.interval.ms",
    type: "int",
    default: 1000,
    min: 10,
    importance: "low",
    doc: "How often the leader's exporters look for new records in the schemas topic (Sluice's own).",
  },
  {
    name: "exporter.retry.backoff.ms",
    type: "int",
    default: 10000,
    min: 0,
    importance: "low",
    doc: "How long an exporter in ERROR waits before the leader tries it again (Sluice's own).",
  },
  {
    name: "schema.compatibility.level",
    aliases: ["avro.compatibility.level"],
    type: "string",
    default: "BACKWARD",
    oneOf: [...COMPATIBILITY_LEVELS],
    importance: "high",
    doc: "Compatibility level used when neither the subject nor the global config sets one.",
  },
  {
    name: "schema.cache.size",
    type: "int",
    // Not Confluent's 1000: JSC's collector never moves objects, so a cache of parse trees that keeps
    // turning over leaves the heap's blocks pinned by the long-lived objects allocated between them.
    // At 1000 the registry soak (20 000 registrations) ended 158-172 MiB idle against 110 fresh, for
    // ~3 MB of live parses; at 1, 129-132 MiB. A registration parses the new schema and the versions
    // its level compares anyway: only *_TRANSITIVE subjects with many versions re-parse more.
    default: 1,
    min: 1,
    importance: "low",
    doc: "Parsed schemas kept in memory for compatibility checks and look-ups (least recently used dropped first). Default 1, not Confluent's 1000: a larger cache that keeps turning over costs far more resident memory than the parses it holds; raise it for subjects checked *_TRANSITIVE against many versions.",
  },
  {
    name: "schema.response.cache.size",
    type: "int",
    default: 10000,
    min: 1,
    importance: "low",
    doc: "Response bodies of GET /schemas/ids/{id} kept in memory (least recently used dropped first).",
  },
  {
    name: "mode.mutability",
    type: "boolean",
    default: true,
    importance: "low",
    doc: "Whether PUT /mode may change modes.",
  },
  {
    name: "size.limit.filter.max.request.body.size",
    type: "int",
    default: 1048576 * 4,
    min: 1,
    importance: "low",
    doc: "Largest request body accepted; larger bodies get 413.",
  },
  {
    name: "schema.registry.group.id",
    type: "string",
    default: "schema-registry",
    importance: "medium",
    doc: "Group through which instances sharing the schemas topic elect their leader; a different id per registry cluster on one Kafka.",
  },
  {
    name: "leader.eligibility",
    aliases: ["master.eligibility"],
    type: "boolean",
    default: true,
    importance: "medium",
    doc: "Whether this instance may become the leader (the one that writes); false: it only serves reads and forwards writes.",
  },
  {
    name: "inter.instance.protocol",
    type: "string",
    default: "http",
    oneOf: ["http", "https"],
    importance: "low",
    doc: "Scheme other instances use to reach this one (the listener of that scheme is advertised).",
  },
  {
    name: "kafkagroup.session.timeout.ms",
    type: "int",
    default: 10000,
    min: 1,
    importance: "low",
    doc: "An instance not heard from for this long leaves the group; if it led, another is elected.",
  },
  {
    name: "kafkagroup.heartbeat.interval.ms",
    type: "int",
    default: 3000,
    min: 1,
    importance: "low",
    doc: "How often an instance tells the group coordinator it is alive.",
  },
  {
    name: "kafkagroup.rebalance.timeout.ms",
    type: "int",
    default: 300000,
    min: 1,
    importance: "low",
    doc: "How long an election waits for every instance to rejoin.",
  },
  {
    name: "data.dir",
    type: "string",
    default: "./data",
    importance: "high",
    doc: "Directory of the embedded broker's logs (used when no bootstrap servers are set).",
  },
  {
    name: "debug",
    type: "boolean",
    default: false,
    importance: "low",
    doc: "Verbose logging.",
  },
  ...logSettings,
  // HTTPS and authentication of the REST API, by rest-utils' names (see docs/security.md).
  ...storeSettings,
  {
    name: "ssl.client.authentication",
    type: "string",
    oneOf: ["NONE", "REQUESTED", "REQUIRED"],
    importance: "medium",
    doc: "Client certificates on https listeners: NONE, REQUESTED (asked for, not needed) or REQUIRED (signed by a trust store CA).",
  },
  {
    name: "ssl.client.auth",
    type: "boolean",
    default: false,
    importance: "low",
    doc: "Deprecated form of ssl.client.authentication: true is REQUIRED (used when ssl.client.authentication is not set).",
  },
  {
    name: "authentication.method",
    type: "string",
    default: "NONE",
    oneOf: ["NONE", "BASIC"],
    importance: "medium",
    doc: "BASIC: HTTP Basic authentication against the users file.",
  },
  {
    name: "authentication.realm",
    type: "string",
    default: "SchemaRegistry-Props",
    importance: "medium",
    doc: "Realm named in WWW-Authenticate, and the section of java.security.auth.login.config naming the users file.",
  },
  {
    name: "authentication.roles",
    type: "list",
    default: ["*"],
    importance: "medium",
    doc: "Roles of which a user needs one (from the users file); `*`: any authenticated user.",
  },
  {
    name: "authentication.skip.paths",
    type: "list",
    default: [],
    importance: "low",
    doc: "Paths served without authentication: `/exact`, `/prefix/*`, `*.ext` (e.g. `/` for the root).",
  },
  {
    name: "authentication.users.file",
    type: "string",
    default: "",
    importance: "medium",
    doc: "Users file (Jetty's format: `user: password[,role...]`, password plain, MD5:, CRYPT:, OBF: or a bcrypt/argon2 hash).",
  },
  {
    name: "authentication.permissions.file",
    type: "string",
    default: "",
    importance: "medium",
    doc: "Karapace's auth file (its `registry_authfile`), instead of the users file: JSON `users` (username, algorithm sha1/sha256/sha512/scrypt, salt, password_hash) and `permissions` (username, or Sluice's `group` for the groups of an OAuth token's principal; operation Read or Write; resource `Config:`, `Subject:<regex>` or `Kek:<regex>` matched from the start). Turns on Basic authentication; each request then needs a permission (403 with error_code 40301 without), and lists show only readable subjects.",
  },
  {
    name: "java.security.auth.login.config",
    type: "string",
    default: "",
    importance: "low",
    doc: "A JAAS file as Confluent's: the `file` option of the authentication.realm section names the users file.",
  },
  // OAuth bearer tokens (Confluent Platform 7.7+'s names) and CORS (rest-utils'), see docs/security.md.
  ...oauthSettings,
  ...corsSettings,
  ...corsHeaderSettings,
  {
    name: "access.control.skip.options",
    type: "boolean",
    default: true,
    importance: "low",
    doc: "With CORS on (access.control.allow.origin), OPTIONS requests need no credentials, so browsers' preflights get through.",
  },
  {
    name: "console.enabled",
    type: "boolean",
    default: true,
    importance: "low",
    doc: "Serves the web console at `/ui/` (and its proxy to connect); false: `/ui/` is 404.",
  },
  {
    name: "console.connect.url",
    type: "string",
    default: "",
    importance: "low",
    doc: "The connect worker the console at `/ui/` shows beside this registry (`http(s)://host:port`), reached through this registry (`/ui/proxy/connect/`) with the user's credentials. `sluice dev`: its own worker.",
  },
];

// Client settings for the store's Kafka connections are passed through, as Confluent does.
export const registrySettingsDefinition = new SettingsDefinition(
  [...registrySettings, ...unsupportedRegistrySettings],
  ["kafkastore.", "schema.registry.", "leader.", "master.", "inter.instance.", "ssl.", "authentication."],
);
