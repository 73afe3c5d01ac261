// Kafka Connect's REST shapes the pages read, and its write calls.
import { api, enc } from "./api.ts";

export interface TaskStatus {
  id: number;
  state: string;
  worker_id: string;
  trace?: string;
}

export interface ConnectorStatus {
  name: string;
  connector: { state: string; worker_id: string; trace?: string };
  tasks: TaskStatus[];
  type?: string;
}

export interface ConnectorInfo {
  name: string;
  config: Record<string, string>;
  tasks: { connector: string; task: number }[];
  type?: string;
}

/** Sluice's own: a connector's settings the worker accepted and does nothing with, with the warning for each. */
export interface IgnoredSettings {
  noEffect: { name: string; message: string }[];
  unknown: { name: string; message: string }[];
}

export const ignoredSettings = (name: string) =>
  api<IgnoredSettings>("connect", `/sluice/connectors/${enc(name)}/ignored-settings`);

export type Expanded = Record<string, { status?: ConnectorStatus; info?: ConnectorInfo }>;

export const connectors = () => api<Expanded>("connect", "/connectors?expand=status&expand=info");

const c = (name: string) => `/connectors/${enc(name)}`;

export const actions = {
  pause: (name: string) => api("connect", `${c(name)}/pause`, { method: "PUT" }),
  resume: (name: string) => api("connect", `${c(name)}/resume`, { method: "PUT" }),
  stop: (name: string) => api("connect", `${c(name)}/stop`, { method: "PUT" }),
  restart: (name: string, includeTasks: boolean, onlyFailed: boolean) =>
    api("connect", `${c(name)}/restart?includeTasks=${includeTasks}&onlyFailed=${onlyFailed}`, { method: "POST" }),
  restartTask: (name: string, task: number) => api("connect", `${c(name)}/tasks/${task}/restart`, { method: "POST" }),
  remove: (name: string) => api("connect", c(name), { method: "DELETE" }),
};

export interface PluginInfo {
  class: string;
  type: string;
  version?: string;
}

export interface ConfigKey {
  name: string;
  type: string;
  required: boolean;
  default_value: string | null;
  importance: string;
  documentation: string | null;
  group: string | null;
  order?: number;
  display_name?: string;
}

export interface Validation {
  error_count: number;
  configs: {
    definition: ConfigKey;
    value: { name: string; value: string | null; errors: string[]; visible: boolean; recommended_values: string[] };
  }[];
}

export const pluginConfig = (plugin: string) => api<ConfigKey[]>("connect", `/connector-plugins/${enc(plugin)}/config`);
export const validate = (plugin: string, config: Record<string, string>) =>
  api<Validation>("connect", `/connector-plugins/${enc(plugin)}/config/validate`, { method: "PUT", body: config });
