// What both herders share: the worker they run connectors on, validation, and what the REST layer
// reads through a herder (never through its worker's internals).
import type { ParsedSettings } from "../../../platform/settings.ts";
import type { ConnectMetrics } from "../metrics.ts";
import type { PluginRegistry } from "../plugins/registry.ts";
import { connectErrors } from "../rest-errors.ts";
import type { TargetState } from "../storage/internal-records.ts";
import type { Worker } from "../worker/worker.ts";
import type { ConfigInfos } from "./config-infos.ts";
import type { IgnoredSettings, OffsetsView } from "./herder.ts";
import { alteredMessage, notStopped, sinkOffsets, writeConnectorOffsets } from "./offsets-admin.ts";
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

  ignoredSettings(name: string): IgnoredSettings {
    const { noEffect, unknown } = this.validator.ignoredSettings(this.connectorConfig(name));
    const list = (m: Map<string, string>) => [...m].map(([setting, message]) => ({ name: setting, message }));
    return { noEffect: list(noEffect), unknown: list(unknown) };
  }

  /** A connector's config; 404 for an unknown connector. */
  protected abstract connectorConfig(name: string): Record<string, string>;
  abstract targetState(name: string): TargetState | undefined;
  /** Runs before offsets are altered or reset (distributed: only the leader writes them). */
  protected async beforeOffsetsWrite(): Promise<void> {}
  /** A sink's committed offsets as GET /offsets shows them (standalone hides the partitions it reset). */
  protected shownSinkOffsets(_name: string, offsets: OffsetsView["offsets"]): OffsetsView["offsets"] {
    return offsets;
  }
  protected onSinkOffsetWritten(_name: string, _topic: string, _partition: number, _reset: boolean): void {}

  // ---- offsets (KIP-875) ----

  async offsets(name: string): Promise<OffsetsView> {
    const config = this.connectorConfig(name);
    const { offsets, broker } = this.worker.options;
    if (this.worker.connectorType(config["connector.class"]!) === "source") {
      // In a cluster another worker may have committed since this one last read.
      await offsets.refresh?.();
      return { offsets: offsets.all(name) };
    }
    return { offsets: this.shownSinkOffsets(name, await sinkOffsets(broker, name, config)) };
  }

  async alterOffsets(name: string, offsets: OffsetsView["offsets"] | undefined): Promise<string> {
    await this.beforeOffsetsWrite();
    const config = this.stoppedConfig(name);
    if (!offsets || offsets.length === 0) throw connectErrors.badRequest("Partitions / offsets need to be provided for an alter offsets request");
    return alteredMessage("altered", await this.writeOffsets(name, config, offsets));
  }

  async resetOffsets(name: string): Promise<string> {
    await this.beforeOffsetsWrite();
    const config = this.stoppedConfig(name);
    const current = (await this.offsets(name)).offsets.map((o) => ({ partition: o.partition, offset: null }));
    return alteredMessage("reset", await this.writeOffsets(name, config, current));
  }

  private writeOffsets(name: string, config: Record<string, string>, offsets: OffsetsView["offsets"]): Promise<boolean> {
    return writeConnectorOffsets(this.worker, name, config, offsets, (topic, partition, reset) => this.onSinkOffsetWritten(name, topic, partition, reset));
  }

  private stoppedConfig(name: string): Record<string, string> {
    const config = this.connectorConfig(name);
    if (this.targetState(name) !== "STOPPED") throw notStopped(name);
    return config;
  }
}
