// The console's bundle. build.ts replaces this module in the binary by one holding the bundle as text
// (the binary has no files beside it); from source it is built once, on first use.
import { buildConsole, type ConsoleAssets } from "./bundle.ts";

let built: Promise<ConsoleAssets> | undefined;

export function consoleAssets(): Promise<ConsoleAssets> {
  built ??= buildConsole();
  return built;
}
