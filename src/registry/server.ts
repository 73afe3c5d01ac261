// Wires a running registry: broker → schema log → service → HTTP listeners.
import { withConsole } from "../console-host/host.ts";
import { isLoopback, listen, type Listening } from "../platform/listeners.ts";
import { corsFromSettings, withCors } from "../platform/cors.ts";
import { forwardingTls } from "../platform/tls.ts";
import { hostname } from "node:os";
import { clientSecurity } from "../broker/client-security.ts";
import { storeClientSettings, withoutPrefix } from "../broker/client-settings.ts";
import { createBroker } from "../broker/index.ts";
import type { Broker } from "../broker/broker.ts";
import { logger } from "../platform/log.ts";
import type { ParsedSettings } from "../platform/settings.ts";
import { RegistryCluster, type Identity } from "./cluster.ts";
import { parseLevel } from "./compatibility.ts";
import { registryHealth } from "./health.ts";
import { registryApp } from "./http/app.ts";
import { withAliases } from "./http/aliases.ts";
import { withContextBase } from "./http/context-base.ts";
import { withCachedReads } from "./http/cached-reads.ts";
import { SchemasById } from "./http/schemas-by-id.ts";
import { RegistryMetrics } from "./metrics.ts";
import { keysLog } from "./dek/keys-log.ts";
import { DekRegistry } from "./dek/service.ts";
import { configLog, statusLog } from "./exporters/logs.ts";
import { autoContextOf } from "./exporters/naming.ts";
import { ExporterRunner } from "./exporters/runner.ts";
import { PasswordEncoder } from "./exporters/secrets.ts";
import { SchemaExporters } from "./exporters/service.ts";
import { registrySecurity } from "./security.ts";
import { RegistryService } from "./service.ts";
import { registrySettingsDefinition } from "./settings.ts";
import { SchemaLog } from "./store/schema-log.ts";
import { RegistryState } from "./store/state.ts";

const log = logger("registry");

export interface RunningRegistry {
  service: RegistryService;
  cluster: RegistryCluster;
  metrics: RegistryMetrics;
  broker: Broker;
  urls: string[];
  stop(): Promise<void>;
}

/** Confluent's own `kafkastore.` settings of its store (not its Kafka clients'): not Kafka client settings. */
const STORE_SETTINGS = new Set([
  "group.id",
  "checkpoint.dir",
  "checkpoint.version",
  "update.handlers",
  "write.max.retries",
  "write.retry.backoff.ms",
  "connection.url",
  "zk.session.timeout.ms",
]);

/**
 * The registry's `kafkastore.` Kafka client settings, unprefixed, as Confluent hands them to its store's
 * clients. A misspelling of a registry setting (kafkastore.bootstrap.server) is not one: the command line
 * already names it with the setting it most likely means.
 */
function storeClientProps(settings: ParsedSettings): Record<string, string> {
  return Object.fromEntries(
    Object.entries(withoutPrefix(settings.extra, "kafkastore.")).filter(
      ([name]) => !STORE_SETTINGS.has(name) && registrySettingsDefinition.accepts(`kafkastore.${name}`),
    ),
  );
}

/**
 * Starts the registry; `shared` is a broker another service of this process already connected (sluice
 * dev), `connectUrl` that process's connect worker, for the console (when console.connect.url is unset).
 */
export async function startRegistry(
  settings: ParsedSettings,
  shared?: Broker,
  connectUrl?: () => string | undefined,
): Promise<RunningRegistry> {
  // Bad key stores or users files fail here, before anything is started.
  const security = registrySecurity(settings);
  // The store's Kafka client settings (kafkastore.compression.type, …): a bad one stops start-up here.
  const store = storeClientSettings(storeClientProps(settings));
  const onKafka = !shared && settings.list("kafkastore.bootstrap.servers").length > 0;
  for (const warning of store.warnings) log.warn(warning);
  const given = Object.keys(storeClientProps(settings))
    .filter((k) => !/^(security\.protocol|sasl\.|ssl\.)/.test(k))
    .map((k) => `kafkastore.${k}`);
  if (!onKafka && given.length > 0)
    log.warn(
      `Settings ${given.join(", ")} have no effect: ${shared ? "sluice dev connects both services through one Kafka client" : "the embedded broker (no kafkastore.bootstrap.servers) has no Kafka client"}`,
    );
  const broker =
    shared ??
    createBroker({
      bootstrapServers: settings.list("kafkastore.bootstrap.servers"),
      dataDir: settings.string("data.dir"),
      clientId: `schema-registry-${settings.optionalString("host.name") ?? hostname()}`,
      security: clientSecurity(settings.extra, "kafkastore."),
      tuning: store.tuning,
    });
  if (!shared) await broker.connect();
  const schemaLog = new SchemaLog(broker, new RegistryState(), {
    topic: settings.string("kafkastore.topic"),
    replicationFactor: settings.int("kafkastore.topic.replication.factor"),
    timeoutMs: settings.int("kafkastore.timeout.ms"),
    initTimeoutMs: settings.int("kafkastore.init.timeout.ms"),
  });
  const dekLog = keysLog(broker, {
    topic: settings.string("dek.registry.topic"),
    replicationFactor: settings.int("kafkastore.topic.replication.factor"),
    timeoutMs: settings.int("kafkastore.timeout.ms"),
    initTimeoutMs: settings.int("kafkastore.init.timeout.ms"),
  });
  const exporterLogOptions = (topic: string) => ({
    topic,
    replicationFactor: settings.int("kafkastore.topic.replication.factor"),
    timeoutMs: settings.int("kafkastore.timeout.ms"),
    initTimeoutMs: settings.int("kafkastore.init.timeout.ms"),
  });
  const exporterConfigs = configLog(broker, exporterLogOptions(settings.string("exporter.config.topic")));
  const exporterStates = statusLog(broker, exporterLogOptions(settings.string("exporter.state.topic")));
  try {
    await schemaLog.start();
    await dekLog.start();
    await exporterConfigs.start();
    await exporterStates.start();
  } catch (err) {
    await exporterStates.stop();
    await exporterConfigs.stop();
    await dekLog.stop();
    await schemaLog.stop();
    if (!shared) await broker.close();
    throw err;
  }
  const service = new RegistryService(schemaLog, {
    defaultCompatibility: parseLevel(settings.string("schema.compatibility.level"))!,
    modeMutability: settings.boolean("mode.mutability"),
    // What one write to the store may carry (Kafka's max.request.size, kafkastore.'s on Kafka), less the record's framing.
    maxSchemaBytes: (onKafka ? store.tuning.producer.maxRequestSize : 1048576) - 1024,
    schemaCacheSize: settings.int("schema.cache.size"),
  });
  const cluster = new RegistryCluster(broker, {
    groupId: settings.string("schema.registry.group.id"),
    identity: advertisedIdentity(settings),
    sessionTimeoutMs: settings.int("kafkagroup.session.timeout.ms"),
    heartbeatIntervalMs: settings.int("kafkagroup.heartbeat.interval.ms"),
    rebalanceTimeoutMs: settings.int("kafkagroup.rebalance.timeout.ms"),
    onLeadership: async (leader) => {
      await schemaLog.leadershipChanged(leader);
      await dekLog.leadershipChanged(leader);
      await exporterConfigs.leadershipChanged(leader);
      await exporterStates.leadershipChanged(leader);
      // Starting returns at once (the exporters run in the background); stopping waits for a pass to end.
      await runner.leadershipChanged(leader);
    },
  });
  schemaLog.writer = cluster;
  dekLog.writer = cluster;
  exporterConfigs.writer = cluster;
  exporterStates.writer = cluster;
  const secret = settings.string("password.encoder.secret");
  const encoder = secret ? new PasswordEncoder(secret) : undefined;
  const exporters = new SchemaExporters(exporterConfigs, exporterStates, {
    maxExporters: settings.int("exporter.max.exporters"),
    encoder,
  });
  const runner = new ExporterRunner(broker, schemaLog, exporters, {
    schemasTopic: settings.string("kafkastore.topic"),
    pollMs: settings.int("exporter.poll.interval.ms"),
    retryMs: settings.int("exporter.retry.backoff.ms"),
    encoder,
    autoContext: async () => autoContextOf(await broker.clusterId?.()),
  });
  exporters.changed = () => runner.nudge();
  const dek = new DekRegistry(dekLog, { maxKeys: settings.int("dek.registry.max.keys") });
  cluster.start();
  // Reads are served at once; writes wait for the first election (bounded: then 50004 until one).
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    cluster.firstElection,
    new Promise((resolve) => (timer = setTimeout(resolve, settings.int("kafkastore.init.timeout.ms")))),
  ]);
  clearTimeout(timer);
  const maxBodyBytes = settings.int("size.limit.filter.max.request.body.size");
  const metrics = new RegistryMetrics(schemaLog.state, () => cluster.isLeader);
  const schemasById = new SchemasById(service, settings.int("schema.response.cache.size"), security.access);
  const app = registryApp(service, {
    dek,
    exporters,
    maxBodyBytes,
    schemasById,
    guard: security.guard,
    access: security.access,
    userOf: security.userOf,
    cluster: () => cluster.view(),
    forwardTls: forwardingTls(security.tls),
    metrics: metrics.registry,
    health: () => registryHealth(schemaLog),
    serverMetadata: {
      kafkaClusterId: async () => broker.clusterId?.(),
      groupId: settings.string("schema.registry.group.id"),
    },
  });
  const connectSetting = settings.optionalString("console.connect.url");
  const served = withConsole(
    withContextBase(
      withAliases(
        withCachedReads(metrics.http.instrument(app), { schemasById, guard: security.guard, metrics: metrics.http }),
        (subject, forDeks) => service.aliasOf(subject, forDeks),
      ),
      security.guard,
    ),
    {
      enabled: settings.boolean("console.enabled"),
      service: "registry",
      peer: () => connectSetting ?? connectUrl?.(),
      guard: security.guard,
      tls: forwardingTls(security.tls),
      tokenLogin: security.tokenLogin,
    },
  );
  // Outermost: preflights are answered before any authentication, as Jetty's filter answers them.
  const fetch = withCors(served, corsFromSettings(settings));
  const servers: Listening[] = [];
  for (const listener of settings.list("listeners")) {
    // Bun's own hard stop at twice the limit; the app answers 413 in Confluent's shape below this.
    servers.push(
      await listen(new URL(listener), {
        tls: security.tls,
        defaultPort: 8081,
        maxRequestBodySize: maxBodyBytes * 2,
        fetch,
      }),
    );
  }
  const urls = servers.map((s) => `${s.protocol}://${s.hostname}:${s.port}`);
  log.info({ urls, broker: broker.kind }, "schema registry ready");
  return {
    service,
    broker,
    cluster,
    metrics,
    urls,
    async stop() {
      for (const s of servers) await s.stop(true);
      await runner.stop();
      await cluster.stop();
      await exporterStates.stop();
      await exporterConfigs.stop();
      await dekLog.stop();
      await schemaLog.stop();
      if (!shared) await broker.close();
    },
  };
}

/** How other instances reach this one: host.name (or the machine's name) and the listener of inter.instance.protocol. */
function advertisedIdentity(settings: ParsedSettings): Identity {
  const listeners = settings.list("listeners").map((l) => new URL(l));
  // The listener of inter.instance.protocol; with none of that scheme, the first listener as it is.
  const wanted = listeners.find((l) => l.protocol === `${settings.string("inter.instance.protocol")}:`);
  const listener = wanted ?? listeners[0];
  const scheme = listener ? listener.protocol.slice(0, -1) : settings.string("inter.instance.protocol");
  return {
    version: 1,
    // A registry bound to loopback only is reached there, not at the machine's name.
    host:
      settings.optionalString("host.name") ??
      (listener && isLoopback(listener.hostname) ? listener.hostname : hostname()),
    port: Number(listener?.port || (scheme === "https" ? 443 : 8081)),
    master_eligibility: settings.boolean("leader.eligibility"),
    scheme,
  };
}
