// A plugins/ folder as a plugin author leaves it: `sluice dev` loads the good plugin next to one that
// does not build and one without a default factory, says where the first is broken and why the second
// was skipped, and lists each connector plugin with its version.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { freePort } from "../fixtures/wait.ts";
import { install, linesWith, type Install, type Running } from "../fixtures/sluice-process.ts";

const GOOD = `export default (sdk) => {
  class TickTask extends sdk.SourceTask {
    version() { return "2.3.4"; }
    start() {}
    async poll() { await Bun.sleep(100); return null; }
    stop() {}
  }
  class TickConnector extends sdk.SourceConnector {
    static className = "com.example.TickConnector";
    version() { return "2.3.4"; }
    start() {}
    taskClass() { return TickTask; }
    taskConfigs(max) { return [{}]; }
    stop() {}
    config() { return new sdk.SettingsDefinition([]); }
  }
  return [TickConnector];
};
`;
// Line 2, column 13: the missing right-hand side.
const BROKEN = `export default (sdk) => {
  const x = ;
  return [];
};
`;
const NO_FACTORY = `export const answer = 42;
`;

let sluice: Install;
let running: Running;
let url: string;
beforeAll(async () => {
  sluice = install();
  const plugins = join(sluice.dir, "plugins");
  mkdirSync(plugins);
  writeFileSync(join(plugins, "tick.ts"), GOOD);
  writeFileSync(join(plugins, "broken.ts"), BROKEN);
  writeFileSync(join(plugins, "helpers.ts"), NO_FACTORY);
  url = `http://127.0.0.1:${freePort()}`;
  running = await sluice.start([
    "dev",
    "--registry-listeners",
    `http://127.0.0.1:${freePort()}`,
    "--connect-listeners",
    url,
  ]);
}, 180_000);
afterAll(() => sluice.remove());

test("a plugin that does not build is logged with file:line:column and the message", () => {
  const [line] = linesWith(running.output(), "plugin could not be loaded");
  expect(line).toBeDefined();
  expect(JSON.parse(line!).err).toBe(`${join(sluice.dir, "plugins", "broken.ts")}:2:13: Unexpected ;`);
});

test("a module without a default factory is logged as skipped, with why", () => {
  const [line] = linesWith(running.output(), "plugin module skipped");
  expect(line).toBeDefined();
  const entry = JSON.parse(line!);
  expect(entry.file).toBe(join(sluice.dir, "plugins", "helpers.ts"));
  expect(entry.reason).toContain("no default export (sdk) => [...]");
});

test("the good plugin loads and /connector-plugins lists every connector with its version", async () => {
  const plugins = (await (await fetch(`${url}/connector-plugins`)).json()) as {
    class: string;
    type: string;
    version?: string;
  }[];
  expect(plugins).toContainEqual({ class: "com.example.TickConnector", type: "source", version: "2.3.4" });
  expect(plugins.every((p) => typeof p.version === "string" && p.version !== "")).toBe(true);
});
