// `sluice dev`'s connect worker: a distributed worker alone in its group, so connector configs, target
// states, statuses and source offsets live in the three internal topics of dev's broker (embedded or
// Kafka) and survive restarts, as in Kafka Connect's distributed mode. Connector files given on the
// command line are applied on top, as PUTs: the file's config wins over a stored one.
import { existsSync, renameSync } from "node:fs";
import type { Broker } from "../../broker/broker.ts";
import { logger } from "../../platform/log.ts";
import type { ParsedSettings } from "../../platform/settings.ts";
import type { DistributedHerder } from "./herder/distributed.ts";
import { ForwardRequest } from "./herder/herder.ts";
import {
  offsetsFile,
  readConnectorFile,
  startConnectDistributed,
  type ConnectOptions,
  type RunningConnect,
} from "./server.ts";
import { FileOffsetStore } from "./storage/offset-store.ts";

const log = logger("connect");

/** Worker settings dev starts from (settings files, CONNECT_* and flags override them). */
export const DEV_CONNECT_DEFAULTS: Record<string, string> = {
  // On for local development, as Kafka's quickstart turns them on; so this machine only can reach the
  // worker (its FileStream connectors read and write any file the user can).
  "file.connectors.enable": "true",
  listeners: "http://127.0.0.1:8083",
  "group.id": "sluice-dev-connect",
  "config.storage.topic": "sluice-dev-connect-configs",
  "offset.storage.topic": "sluice-dev-connect-offsets",
  "status.storage.topic": "sluice-dev-connect-status",
  // One machine: one replica, few partitions.
  "config.storage.replication.factor": "1",
  "offset.storage.replication.factor": "1",
  "status.storage.replication.factor": "1",
  "offset.storage.partitions": "1",
  "status.storage.partitions": "1",
  // The worker gone is this one, back after a restart or crash: its work is not held for it.
  "scheduled.rebalance.max.delay.ms": "0",
};

/** The registry of `dev`: on this machine only, as its connect worker. */
export const DEV_REGISTRY_DEFAULTS: Record<string, string> = { listeners: "http://127.0.0.1:8081" };

export async function startConnectDev(options: ConnectOptions & { broker: Broker }): Promise<RunningConnect> {
  const { settings } = options;
  const connect = await startConnectDistributed({
    settings,
    workerConfig: options.workerConfig,
    broker: options.broker,
    catalog: options.catalog,
    taskThreadEntry: options.taskThreadEntry,
    registryUrl: options.registryUrl,
    beforeJoin: async (herder) => {
      logRestored(herder, settings.string("config.storage.topic"));
      await carryOffsetsFile(settings, herder);
    },
  });
  // Files are applied by the group's leader, this worker once it has joined; without files, start-up
  // does not wait for the join (the REST API answers meanwhile, writes waiting for it).
  if (options.connectorFiles.length > 0) await connect.herder.assigned();
  try {
    for (const file of options.connectorFiles) await applyConnectorFile(connect.herder, file);
  } catch (err) {
    if (!(err instanceof ForwardRequest)) throw err;
    // Another worker (another dev on the same Kafka) leads the group: its connectors are this one's.
    throw new Error(
      `another connect worker (${err.url}) leads group ${settings.string("group.id")} and shares its connectors with this dev; give this dev its own --group.id, --config.storage.topic, --offset.storage.topic and --status.storage.topic`,
    );
  }
  return connect;
}

/** One line at start: what the config topic gave back. */
function logRestored(herder: DistributedHerder, topic: string): void {
  const connectors = herder.connectorNames().map((name) => ({ name, state: herder.targetState(name) }));
  const list = connectors.map((c) => `${c.name} (${c.state})`).join(", ");
  log.info(
    { topic, connectors },
    `restored ${connectors.length} connector${connectors.length === 1 ? "" : "s"} from ${topic}${list ? `: ${list}` : ""}`,
  );
}

/**
 * Earlier versions of dev kept source offsets in a file (standalone's, data.dir/connect.offsets). Its
 * offsets go into the offsets topic once, where the topic has none for a partition (the topic's are
 * newer); the file is then renamed so a later start does not bring back offsets reset since.
 */
async function carryOffsetsFile(settings: ParsedSettings, herder: DistributedHerder): Promise<void> {
  const { file, setting } = offsetsFile(settings);
  if (!existsSync(file)) return;
  const from = await FileOffsetStore.open(file, setting);
  const into = herder.worker.options.offsets;
  let carried = 0;
  for (const connector of from.connectors()) {
    const missing = from.all(connector).filter((e) => into.get(connector, e.partition) === null);
    if (missing.length > 0) await into.set(connector, missing);
    carried += missing.length;
  }
  renameSync(file, `${file}.migrated`);
  log.info(
    { file, topic: settings.string("offset.storage.topic"), offsets: carried },
    `carried ${carried} source offsets from ${file} into ${settings.string("offset.storage.topic")}; the file is kept as ${file}.migrated`,
  );
}

/** As PUT /connectors/{name}/config: created, or updated when the file's config differs from the stored one. */
async function applyConnectorFile(herder: DistributedHerder, file: string): Promise<void> {
  const { name, config, initialState } = readConnectorFile(file);
  const stored = herder.connectorNames().includes(name) ? herder.config(name) : undefined;
  if (stored && JSON.stringify(stored) === JSON.stringify({ ...config, name })) return;
  const { created } = await herder.putConnector(name, config, { allowReplace: true, initialState });
  log.info(
    { connector: name, file, created },
    created
      ? `connector ${name} created from ${file}`
      : `connector ${name} updated from ${file}: its config differed from the stored one`,
  );
}
