// Connector configs, task configs and target states as a herder reads them (a snapshot of Kafka
// Connect's ConfigBackingStore): the config topic's state (config-log.ts) in a cluster, memory for a
// standalone worker.
import type { TargetState } from "./internal-records.ts";

export interface ConfigView {
  readonly connectors: ReadonlyMap<string, Record<string, string>>;
  /** Task configs per connector. */
  readonly tasks: ReadonlyMap<string, readonly Record<string, string>[]>;
  target(name: string): TargetState;
}

/** Configs in memory (Kafka's MemoryConfigBackingStore): from files at start, and REST changes until restart. */
export class MemoryConfigStore implements ConfigView {
  private readonly configs = new Map<string, Record<string, string>>();
  private readonly taskConfigs = new Map<string, Record<string, string>[]>();
  private readonly targets = new Map<string, TargetState>();

  get connectors(): ReadonlyMap<string, Record<string, string>> {
    return this.configs;
  }

  get tasks(): ReadonlyMap<string, readonly Record<string, string>[]> {
    return this.taskConfigs;
  }

  target(name: string): TargetState {
    return this.targets.get(name) ?? "STARTED";
  }

  putConnector(name: string, config: Record<string, string>): void {
    this.configs.set(name, config);
  }

  putTarget(name: string, state: TargetState): void {
    this.targets.set(name, state);
  }

  putTaskConfigs(name: string, configs: Record<string, string>[]): void {
    this.taskConfigs.set(name, configs);
  }

  remove(name: string): void {
    this.configs.delete(name);
    this.taskConfigs.delete(name);
    this.targets.delete(name);
  }
}
