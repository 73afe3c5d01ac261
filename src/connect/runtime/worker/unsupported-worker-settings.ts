// Kafka Connect worker settings (WorkerConfig, DistributedConfig, RestServerConfig) that Sluice does
// not implement: the worker refuses to start with one that would change security or delivery, and
// warns about the tuning ones. They are declared by name, not passed through under a prefix, so a
// security or delivery setting cannot hide among them.
import { refused, unsupportedAll, type Setting } from "../../../platform/settings.ts";

export const unsupportedWorkerSettings: Setting[] = [
  refused(
    "admin.listeners",
    "Sluice serves the admin endpoints (/admin/loggers) on the REST listeners; it has no separate admin listeners",
  ),
  refused("response.http.headers.config", "Sluice adds no configured headers to its REST responses", [""]),
  ...unsupportedAll(
    "ignored",
    [
      "inter.worker.key.generation.algorithm",
      "inter.worker.key.size",
      "inter.worker.key.ttl.ms",
      "inter.worker.signature.algorithm",
      "inter.worker.verification.algorithms",
    ],
    "Sluice's workers send each other no requests Kafka signs with a session key (task configs go through the config topic)",
  ),
  ...unsupportedAll(
    "ignored",
    ["connect.protocol", "worker.sync.timeout.ms", "worker.unsync.backoff.ms"],
    "it tunes Kafka's worker group protocol; Sluice's has no such knob",
  ),
  ...unsupportedAll(
    "ignored",
    [
      "metric.reporters",
      "metrics.num.samples",
      "metrics.sample.window.ms",
      "metrics.recording.level",
      "auto.include.jmx.reporter",
      ["metrics.context.<name>", /^metrics\.context\./],
    ],
    "Sluice has no JMX or metric reporters; its metrics are served at /metrics",
  ),
  ...unsupportedAll(
    "ignored",
    ["plugin.discovery"],
    "Sluice's plugins are JavaScript modules, found by plugin.path only",
  ),
];
