// Wires a connect worker: broker → plugins → worker → herder → REST listeners. Standalone takes its
// connectors from files given at start; distributed takes them from the cluster's config topic.
import { withConsole } from "../../console-host/host.ts";
import { listen, type Listening } from "../../platform/listeners.ts";
import { corsFromSettings, withCors } from "../../platform/cors.ts";
import { forwardingTls } from "../../platform/tls.ts";
import { readFileSync } from "node:fs";
import { availableParallelism, hostname } from "node:os";
import { join } from "node:path";
import { clientSecurity, overriddenSecurity } from "../../broker/client-security.ts";
import { checkClientSettings, taskClientTuning, withoutPrefix, type ClientKind } from "../../broker/client-settings.ts";
import { createBroker, type BrokerChoice } from "../../broker/index.ts";
import type { Broker } from "../../broker/broker.ts";
import { logger } from "../../platform/log.ts";
import { parseProperties } from "../../platform/properties.ts";
import type { ParsedSettings } from "../../platform/settings.ts";
import { ConfigError } from "../../platform/settings.ts";
import { DistributedHerder } from "./herder/distributed.ts";
import type { Herder, TargetState } from "./herder/herder.ts";
import { StandaloneHerder } from "./herder/standalone.ts";
import { connectSecurity } from "./security.ts";
import { connectApp } from "./http/app.ts";
import { loadPlugins } from "./plugins/loader.ts";
import type { PluginRegistry } from "./plugins/registry.ts";
import { FileOffsetStore } from "./storage/offset-store.ts";
import { forcedProducerSettings } from "./herder/exactly-once-config.ts";
import { ConnectorOffsetStores } from "./storage/connector-offset-store.ts";
import { TopicOffsetStore } from "./storage/topic-offset-store.ts";
import { Worker, type WorkerOptions } from "./worker/worker.ts";
import { exactlyOnceSourceSupport, workerSettings } from "./worker/worker-config.ts";
import { noEffectWarning, unknownSettingWarning } from "../../platform/settings.ts";

const log = logger("connect");

export interface RunningConnect {
  herder: Herder;
  broker: Broker;
  urls: string[];
  stop(): Promise<void>;
}

/** A connector file: .properties, or JSON (a flat config map, or {"name","config","initial_state"}). */
export function readConnectorFile(path: string): {
  name: string;
  config: Record<string, string>;
  initialState: TargetState;
} {
  const text = readFileSync(path, "utf8");
  if (path.endsWith(".json")) {
    const parsed = JSON.parse(text) as Record<string, unknown>;
    if (parsed.config && typeof parsed.config === "object") {
      const config = parsed.config as Record<string, string>;
      const initial = String(parsed.initial_state ?? "").toUpperCase();
      return {
        name: String(parsed.name ?? config.name),
        config,
        initialState: initial === "PAUSED" || initial === "STOPPED" ? initial : "STARTED",
      };
    }
    return { name: String(parsed.name), config: parsed as Record<string, string>, initialState: "STARTED" };
  }
  const config = parseProperties(text);
  return { name: config.name!, config, initialState: "STARTED" };
}

export interface ConnectOptions {
  settings: ParsedSettings;
  workerConfig: Record<string, string>;
  connectorFiles: string[];
  /** Share a broker (sluice dev: the registry's); otherwise one is created from the settings. */
  broker?: Broker;
  /** The built-in plugins these settings offer (src/catalog.ts: the runtime does not know the connectors). */
  catalog: (settings: ParsedSettings) => PluginRegistry;
  /** The task threads' entry module (src/task-thread.ts); without it, tasks run on the main thread. */
  taskThreadEntry?: string;
  /** This process's registry (sluice dev), for the console when console.registry.url is unset. */
  registryUrl?: () => string | undefined;
}

/** The worker's task threads: as many as task.threads says (-1: one per core), each with its own client on Kafka. */
function taskThreads(
  options: Pick<ConnectOptions, "settings" | "taskThreadEntry">,
  broker: Broker,
  choice: BrokerChoice,
): WorkerOptions["taskThreads"] {
  if (!options.taskThreadEntry) return undefined;
  const setting = options.settings.int("task.threads");
  const max = setting < 0 ? availableParallelism() : setting;
  return {
    entry: options.taskThreadEntry,
    max,
    broker:
      broker.kind === "kafka"
        ? { kind: "kafka", choice: { ...choice, clientId: "connect-task" } }
        : { kind: "embedded" },
  };
}

/** The REST listeners, and how this worker names itself to others (worker_id = host:port). */
function restIdentity(
  settings: ParsedSettings,
  workerConfig: Record<string, string>,
): { listeners: URL[]; workerId: string; url: string } {
  const legacyPort = settings.int("rest.port");
  const listenerUrls =
    !workerConfig.listeners && legacyPort > 0
      ? [`http://${settings.string("rest.host.name") || "0.0.0.0"}:${legacyPort}`]
      : settings.list("listeners");
  const listeners = listenerUrls.map((l) => new URL(l.replace("://:", "://0.0.0.0:")));
  const chosen =
    listeners.find((l) => l.protocol === `${settings.string("rest.advertised.listener") || "http"}:`) ?? listeners[0];
  const port =
    settings.int("rest.advertised.port") > 0 ? settings.int("rest.advertised.port") : Number(chosen?.port || 8083);
  const host =
    settings.optionalString("rest.advertised.host.name") ??
    (chosen && chosen.hostname !== "0.0.0.0" ? chosen.hostname : hostname());
  return { listeners, workerId: `${host}:${port}`, url: `${chosen?.protocol ?? "http:"}//${host}:${port}/` };
}

function serve(
  herder: Herder,
  broker: Broker,
  listeners: URL[],
  security: ReturnType<typeof connectSecurity>,
  options: Pick<ConnectOptions, "settings" | "registryUrl">,
): Promise<Listening[]> {
  // Read once it is needed and then kept, as Kafka Connect reads it at start.
  let clusterId: Promise<string> | undefined;
  const app = connectApp(herder, {
    kafkaClusterId: () => {
      clusterId ??= (broker.clusterId?.() ?? Promise.resolve(broker.kind)).catch((err: unknown) => {
        clusterId = undefined; // asked again next time
        throw err;
      });
      return clusterId;
    },
    guard: security.guard,
    users: security.users,
    forwardTls: forwardingTls(security.tls),
  });
  const registrySetting = options.settings.optionalString("console.registry.url");
  const served = withConsole(herder.metrics().http.instrument(app), {
    enabled: options.settings.boolean("console.enabled"),
    service: "connect",
    peer: () => registrySetting ?? options.registryUrl?.(),
    guard: security.guard,
    tls: forwardingTls(security.tls),
    tokenLogin: security.tokenLogin,
  });
  // Outermost: preflights are answered before any authentication, as Jetty's filter answers them.
  const fetch = withCors(served, corsFromSettings(options.settings));
  // Bun.serve's default body limit (128 MiB) stays the limit, as before.
  return Promise.all(
    listeners.map((url) =>
      listen(url, { tls: security.tls, defaultPort: 8083, maxRequestBodySize: 128 * 1024 * 1024, fetch }),
    ),
  );
}

/**
 * The tasks' Kafka client: the worker's security settings with its `producer.`, `consumer.` and `admin.`
 * ones over them (Kafka Connect's task clients take those; the worker's own serve here when they are
 * not given, as before), and the other client settings under those prefixes. A client setting Kafka's
 * client would refuse, or Sluice refuses, stops start-up; one of no effect is warned about once.
 */
function tasksClient(settings: ParsedSettings, workerConfig: Record<string, string>): BrokerChoice {
  const securitySettings = overriddenSecurity(workerConfig, workerConfig, ["producer.", "consumer.", "admin."]);
  // Worker settings that only share a prefix (admin.listeners, admin.listeners.https.*) are the worker's own.
  const clientSettings = Object.fromEntries(
    Object.entries(workerConfig).filter(
      ([key]) =>
        /^(producer|consumer|admin)\./.test(key) && !key.startsWith("admin.listeners.") && !workerSettings.find(key),
    ),
  );
  const tuning = taskClientTuning(clientSettings);
  warnClientSettings(clientSettings, settings.list("bootstrap.servers").length === 0);
  return {
    bootstrapServers: settings.list("bootstrap.servers"),
    dataDir: settings.string("data.dir"),
    clientId: "connect",
    security: clientSecurity(securitySettings),
    securitySettings,
    tuning,
    clientSettings,
  };
}

/** One warning per worker client setting of no effect or unknown to Kafka's clients. */
function warnClientSettings(clientSettings: Record<string, string>, embedded: boolean): void {
  for (const kind of ["producer", "consumer", "admin"] as ClientKind[]) {
    const props = withoutPrefix(clientSettings, `${kind}.`);
    const check = checkClientSettings(kind, props);
    for (const use of check.noEffect) log.warn(noEffectWarning({ ...use, name: `${kind}.${use.name}` }));
    for (const name of check.unknown) log.warn(unknownSettingWarning(`${kind}.${name}`, []));
    // The embedded broker keeps its own logs: how a Kafka client writes and connects does not apply.
    const kafkaOnly = Object.keys(props).filter((n) => kind !== "consumer" && !/^(ssl|sasl|security)\./.test(n));
    if (embedded && kafkaOnly.length > 0)
      log.warn(
        `Settings ${kafkaOnly.map((n) => `${kind}.${n}`).join(", ")} have no effect on the embedded broker (no bootstrap.servers): they shape Kafka clients`,
      );
  }
}

/** Standalone's source offsets file, and the setting that named it. */
export function offsetsFile(settings: ParsedSettings): { file: string; setting: string } {
  const named = settings.string("offset.storage.file.filename");
  return named
    ? { file: named, setting: "offset.storage.file.filename" }
    : { file: join(settings.string("data.dir"), "connect.offsets"), setting: "data.dir" };
}

export async function startConnectStandalone(options: ConnectOptions): Promise<RunningConnect> {
  const { settings } = options;
  // Bad key stores or users files fail here, before anything is started.
  const security = connectSecurity(settings, options.workerConfig);
  const exactlyOnce = exactlyOnceSourceSupport(settings);
  if (exactlyOnce !== "disabled")
    throw new ConfigError(
      "exactly.once.source.support",
      exactlyOnce,
      "disabled: a standalone worker keeps source offsets in a file, which cannot be written in a Kafka transaction with the records; exactly-once source support needs a distributed worker",
    );
  const ownBroker = !options.broker;
  const choice = tasksClient(settings, options.workerConfig);
  const broker = options.broker ?? createBroker(choice);
  if (ownBroker) await broker.connect();
  const plugins = options.catalog(settings);
  await loadPlugins(settings.list("plugin.path"), plugins);
  const { file, setting } = offsetsFile(settings);
  const offsets = await FileOffsetStore.open(file, setting);
  const { listeners, workerId, url } = restIdentity(settings, options.workerConfig);
  const worker = new Worker({
    workerId,
    broker,
    plugins,
    offsets,
    settings,
    workerConfig: options.workerConfig,
    taskThreads: taskThreads(options, broker, choice),
    ...(broker.kind === "kafka" ? { kafka: choice } : {}),
  });
  const herder = new StandaloneHerder(worker, url);
  for (const file of options.connectorFiles) {
    const { name, config, initialState } = readConnectorFile(file);
    await herder.putConnector(name, config, { allowReplace: false, initialState });
  }
  const servers = await serve(herder, broker, listeners, security, options);
  const urls = servers.map((s) => `${s.protocol}://${s.hostname}:${s.port}`);
  log.info({ urls, broker: broker.kind, workerId }, "connect worker ready");
  return {
    herder,
    broker,
    urls,
    async stop() {
      for (const s of servers) await s.stop(true);
      await herder.shutdown();
      if (ownBroker) await broker.close();
    },
  };
}

export interface DistributedOptions extends Omit<ConnectOptions, "connectorFiles"> {
  /** Runs once the internal topics are read, before the worker joins its group and starts work. */
  beforeJoin?: (herder: DistributedHerder) => Promise<void>;
}

/** A worker of a distributed cluster: joins `group.id` on Kafka and runs what the leader assigns it. */
export async function startConnectDistributed(
  options: DistributedOptions,
): Promise<RunningConnect & { herder: DistributedHerder }> {
  const { settings } = options;
  const security = connectSecurity(settings, options.workerConfig);
  for (const required of ["group.id", "config.storage.topic", "offset.storage.topic", "status.storage.topic"]) {
    if (!settings.string(required))
      throw new ConfigError(required, "", `Missing required configuration "${required}" which has no default value.`);
  }
  const choice = tasksClient(settings, options.workerConfig);
  const ownBroker = !options.broker;
  const broker = options.broker ?? createBroker(choice);
  if (ownBroker) await broker.connect();
  // The internal topics and the group get connections of their own, apart from the tasks' traffic
  // (the embedded broker is one process's: it is shared), with the worker's own security settings.
  const internal =
    broker.kind === "kafka"
      ? createBroker({
          ...choice,
          clientId: "connect-internal",
          security: clientSecurity(options.workerConfig),
          securitySettings: undefined,
          // Kafka's defaults (acks=all, idempotent): the tasks' producer./consumer. settings are not the internal topics'.
          tuning: undefined,
          clientSettings: undefined,
        })
      : broker;
  if (internal !== broker) await internal.connect();
  const plugins = options.catalog(settings);
  await loadPlugins(settings.list("plugin.path"), plugins);
  const { listeners, workerId, url } = restIdentity(settings, options.workerConfig);
  const topic = (prefix: string, partitions: number) => ({
    name: settings.string(`${prefix}.topic`),
    partitions,
    replicationFactor: settings.int(`${prefix}.replication.factor`),
  });
  const offsetTopic = topic("offset.storage", settings.int("offset.storage.partitions"));
  const exactlyOnce = exactlyOnceSourceSupport(settings);
  // Kafka's `preparing` also has its leader write the config topic transactionally; Sluice's does not.
  if (exactlyOnce === "preparing")
    log.warn(
      "exactly.once.source.support=preparing: source tasks deliver at least once until every worker has enabled; Sluice's workers need no preparing step, and preparing has no other effect",
    );
  if (exactlyOnce === "enabled")
    for (const warning of forcedProducerSettings(options.workerConfig, "producer.").values()) log.warn(warning);
  const worker = new Worker({
    workerId,
    broker,
    plugins,
    offsets: new ConnectorOffsetStores(internal, new TopicOffsetStore(internal, offsetTopic.name), offsetTopic),
    settings,
    workerConfig: options.workerConfig,
    taskThreads: taskThreads(options, broker, choice),
    ...(broker.kind === "kafka" ? { kafka: choice } : {}),
    ...(exactlyOnce === "enabled" ? { exactlyOnce: { groupId: settings.string("group.id") } } : {}),
  });
  const herder = new DistributedHerder(worker, internal, {
    groupId: settings.string("group.id"),
    url,
    configTopic: topic("config.storage", 1),
    offsetTopic,
    statusTopic: topic("status.storage", settings.int("status.storage.partitions")),
    sessionTimeoutMs: settings.int("session.timeout.ms"),
    heartbeatIntervalMs: settings.int("heartbeat.interval.ms"),
    rebalanceTimeoutMs: settings.int("rebalance.timeout.ms"),
    scheduledRebalanceMaxDelayMs: settings.int("scheduled.rebalance.max.delay.ms"),
  });
  // Listening once the topics are read, so reads answer from them; writes before the first
  // assignment wait for it (then 409).
  await herder.readTopics();
  await options.beforeJoin?.(herder);
  herder.join();
  const servers = await serve(herder, broker, listeners, security, options);
  const urls = servers.map((s) => `${s.protocol}://${s.hostname}:${s.port}`);
  log.info({ urls, workerId, group: settings.string("group.id") }, "connect worker started; joining the cluster");
  return {
    herder,
    broker,
    urls,
    async stop() {
      await herder.shutdown();
      for (const s of servers) await s.stop(true);
      if (internal !== broker) await internal.close();
      if (ownBroker) await broker.close();
    },
  };
}
