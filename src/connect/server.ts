// Wires a standalone connect worker: broker → plugins → worker → herder → REST listeners, and the
// connector files given at start.
import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import type { Server } from "bun";
import { createBroker } from "../broker/index.ts";
import type { Broker } from "../broker/broker.ts";
import { logger } from "../common/log.ts";
import { parseProperties } from "../common/properties.ts";
import type { ParsedSettings } from "../common/settings.ts";
import { StandaloneHerder } from "./herder/standalone.ts";
import { connectApp } from "./http/app.ts";
import { builtinPlugins } from "./plugins/builtins.ts";
import { loadPlugins } from "./plugins/loader.ts";
import { FileOffsetStore } from "./storage/offset-store.ts";
import { Worker } from "./worker/worker.ts";

const log = logger("connect");

export interface RunningConnect {
  herder: StandaloneHerder;
  broker: Broker;
  urls: string[];
  stop(): Promise<void>;
}

/** A connector file: .properties, or JSON (a flat config map, or {"name","config","initial_state"}). */
export function readConnectorFile(path: string): { name: string; config: Record<string, string>; initialState?: string } {
  const text = readFileSync(path, "utf8");
  if (path.endsWith(".json")) {
    const parsed = JSON.parse(text) as Record<string, unknown>;
    if (parsed.config && typeof parsed.config === "object") {
      const config = parsed.config as Record<string, string>;
      return { name: String(parsed.name ?? config.name), config, initialState: parsed.initial_state as string | undefined };
    }
    return { name: String(parsed.name), config: parsed as Record<string, string> };
  }
  const config = parseProperties(text);
  return { name: config.name!, config };
}

export interface ConnectOptions {
  settings: ParsedSettings;
  workerConfig: Record<string, string>;
  connectorFiles: string[];
  /** Share a broker (sluice dev: the registry's); otherwise one is created from the settings. */
  broker?: Broker;
}

export async function startConnectStandalone(options: ConnectOptions): Promise<RunningConnect> {
  const { settings } = options;
  const ownBroker = !options.broker;
  const broker = options.broker ?? createBroker({ bootstrapServers: settings.list("bootstrap.servers"), dataDir: settings.string("data.dir"), clientId: "connect" });
  if (ownBroker) await broker.connect();
  const plugins = builtinPlugins();
  await loadPlugins(settings.list("plugin.path"), plugins);
  const offsetFile = settings.string("offset.storage.file.filename") || join(settings.string("data.dir"), "connect.offsets");
  const legacyPort = settings.int("rest.port");
  const listenerUrls = !options.workerConfig.listeners && legacyPort > 0 ? [`http://${settings.string("rest.host.name") || "0.0.0.0"}:${legacyPort}`] : settings.list("listeners");
  const listeners = listenerUrls.map((l) => new URL(l.replace("://:", "://0.0.0.0:")));
  const advertisedPort = settings.int("rest.advertised.port") > 0 ? settings.int("rest.advertised.port") : Number(listeners[0]?.port || 8083);
  const workerId = `${settings.optionalString("rest.advertised.host.name") ?? hostname()}:${advertisedPort}`;
  const worker = new Worker({ workerId, broker, plugins, offsets: new FileOffsetStore(offsetFile), settings, workerConfig: options.workerConfig });
  const herder = new StandaloneHerder(worker);
  for (const file of options.connectorFiles) {
    const { name, config, initialState } = readConnectorFile(file);
    const target = initialState?.toUpperCase() === "PAUSED" ? "PAUSED" : initialState?.toUpperCase() === "STOPPED" ? "STOPPED" : "STARTED";
    await herder.putConnector(name, config, { allowReplace: false, initialState: target });
  }
  const app = connectApp(herder, { kafkaClusterId: broker.kind === "kafka" ? "kafka" : "embedded" });
  const servers: Server<unknown>[] = listeners.map((url) => Bun.serve({ hostname: url.hostname, port: Number(url.port || 8083), fetch: app.fetch }));
  const urls = servers.map((s) => `http://${s.hostname}:${s.port}`);
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
