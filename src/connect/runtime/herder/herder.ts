// What the REST API asks of a herder, whichever mode runs it: standalone.ts (one worker) or
// distributed.ts (a cluster coordinated through Kafka).
import { connectErrors } from "../rest-errors.ts";
import type { TargetState } from "../storage/internal-records.ts";
import type { ParsedSettings } from "../../../platform/settings.ts";
import type { ConnectMetrics } from "../metrics.ts";
import type { PluginRegistry } from "../plugins/registry.ts";
import type { ConfigInfos } from "./config-infos.ts";

export type { TargetState };

export interface ConnectorInfo {
  name: string;
  config: Record<string, string>;
  tasks: { connector: string; task: number }[];
  type: "source" | "sink" | "unknown";
}

/** A connector's or task's state; `version` is the plugin's (Kafka 4.1 shows it). */
export interface StateInfo {
  state: string;
  worker_id: string;
  version?: string;
  trace?: string;
}

export interface ConnectorStateInfo {
  name: string;
  connector: StateInfo;
  tasks: ({ id: number } & StateInfo)[];
  type: "source" | "sink" | "unknown";
}

export interface OffsetsView {
  offsets: { partition: Record<string, unknown>; offset: Record<string, unknown> | null }[];
}

export type TaskState = { id: number } & StateInfo;

/** The workers of a cluster and what each runs, as GET /sluice/workers shows them. */
export interface WorkersView {
  /** The leader's REST URL; null while none is known (a rebalance, Kafka away). */
  leader: string | null;
  workers: {
    id: string;
    url: string;
    leader: boolean;
    connectors: string[];
    tasks: { connector: string; task: number }[];
  }[];
}

/** A REST URL as the console shows it: without the trailing slash of the advertised form. */
export const shownUrl = (url: string) => url.replace(/\/$/, "");

export interface Herder {
  readonly workerId: string;
  plugins(): PluginRegistry;
  settings(): ParsedSettings;
  metrics(): ConnectMetrics;
  connectorNames(): string[];
  validate(config: Record<string, string>): Promise<ConfigInfos>;
  /** A connector's settings Sluice accepted and does nothing with (no effect, or unknown), each with its warning. */
  ignoredSettings(name: string): IgnoredSettings;
  putConnector(
    name: string,
    config: Record<string, string>,
    options: { allowReplace: boolean; initialState?: TargetState },
  ): Promise<{ created: boolean; info: ConnectorInfo }>;
  patchConnector(name: string, patch: Record<string, string | null>): Promise<ConnectorInfo>;
  deleteConnector(name: string): Promise<void>;
  pause(name: string): Promise<void>;
  resume(name: string): Promise<void>;
  stop(name: string): Promise<void>;
  restart(name: string, includeTasks: boolean, onlyFailed: boolean): Promise<ConnectorStateInfo | undefined>;
  restartTask(name: string, index: number): Promise<void>;
  info(name: string): ConnectorInfo;
  config(name: string): Record<string, string>;
  taskConfigs(name: string): { id: { connector: string; task: number }; config: Record<string, string> }[];
  status(name: string): Promise<ConnectorStateInfo>;
  taskStatus(name: string, index: number): Promise<TaskState>;
  topics(name: string): Promise<{ [connector: string]: { topics: string[] } }>;
  resetTopics(name: string): Promise<void>;
  offsets(name: string): Promise<OffsetsView>;
  alterOffsets(name: string, offsets: OffsetsView["offsets"] | undefined): Promise<string>;
  resetOffsets(name: string): Promise<string>;
  /** What GET /health answers (Kafka's KIP-1017 statuses and messages). */
  health(): Health;
  /** The cluster's workers and their work (standalone: this worker, leading itself); may throw ForwardRequest to the leader. */
  workers(): WorkersView;
  /** Every worker's REST URL (as shown) by worker id, this one's included. */
  workerUrls(): Record<string, string>;
  shutdown(): Promise<void>;
}

export interface IgnoredSettings {
  noEffect: { name: string; message: string }[];
  unknown: { name: string; message: string }[];
}

export interface Health {
  status: "healthy" | "starting" | "unhealthy";
  message: string;
  httpStatus: 200 | 503 | 500;
}

export const HEALTHY: Health = {
  status: "healthy",
  message: "Worker has completed startup and is ready to handle requests.",
  httpStatus: 200,
};

/** The request must be handled by another worker (the leader, or the one running a task): the REST layer forwards it. */
export class ForwardRequest extends Error {
  constructor(readonly url: string) {
    super(`forward to ${url}`);
    this.name = "ForwardRequest";
  }
}

/** PATCH /connectors/{c}/config: the patch merged into the config (null removes a key); the name stays. */
export function patchedConfig(
  name: string,
  config: Record<string, string>,
  patch: Record<string, string | null>,
): Record<string, string> {
  const merged: Record<string, string> = { ...config };
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete merged[k];
    else merged[k] = v;
  }
  if (merged.name !== undefined && merged.name !== name) {
    throw connectErrors.badRequest(
      `Connector name configuration (${merged.name}) doesn't match connector name in the URL (${name})`,
    );
  }
  return merged;
}
