// What both herders share: the worker they run connectors on, validation, and what the REST layer
// reads through a herder (never through its worker's internals).
import type { ParsedSettings } from "../../../platform/settings.ts";
import type { ConnectMetrics } from "../metrics.ts";
import type { PluginRegistry } from "../plugins/registry.ts";
import type { Worker } from "../worker/worker.ts";
import type { ConfigInfos } from "./config-infos.ts";
import { ConnectorValidator } from "./validation.ts";

export abstract class HerderBase {
  protected readonly validator: ConnectorValidator;

  constructor(readonly worker: Worker) {
    this.validator = new ConnectorValidator(worker);
  }

  get workerId(): string {
    return this.worker.workerId;
  }

  plugins(): PluginRegistry {
    return this.worker.options.plugins;
  }

  settings(): ParsedSettings {
    return this.worker.options.settings;
  }

  metrics(): ConnectMetrics {
    return this.worker.metrics;
  }

  validate(config: Record<string, string>): Promise<ConfigInfos> {
    return this.validator.validate(config);
  }
}
