// The plugins built into the binary, registered at start under their real class names and aliases.
import { FileStreamSinkConnector } from "../../connectors/file/sink.ts";
import { FileStreamSourceConnector } from "../../connectors/file/source.ts";
import { VERSION } from "../../version.ts";
import { BUILTIN_CONVERTERS } from "../converters/index.ts";
import { PluginRegistry } from "./registry.ts";

export function builtinPlugins(): PluginRegistry {
  const registry = new PluginRegistry();
  registry.add({ className: FileStreamSourceConnector.className, type: "source", version: VERSION, create: () => new FileStreamSourceConnector() });
  registry.add({ className: FileStreamSinkConnector.className, type: "sink", version: VERSION, create: () => new FileStreamSinkConnector() });
  for (const [className, create] of Object.entries(BUILTIN_CONVERTERS)) {
    registry.add({ className, type: "converter", version: VERSION, create });
  }
  return registry;
}
