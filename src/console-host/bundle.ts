// Bundles the front end (src/console/) for browsers with Bun's bundler: build.ts does it once and
// inlines the result into the binary; run from source, the serving process does it on first request.
import { join } from "node:path";

export interface ConsoleAsset {
  body: string;
  type: string;
}

/** The console's files by the name they are served under (below /ui/), index.html included. */
export type ConsoleAssets = Record<string, ConsoleAsset>;

const TYPES: Record<string, string> = { js: "text/javascript; charset=utf-8", css: "text/css; charset=utf-8" };

export async function buildConsole(): Promise<ConsoleAssets> {
  const result = await Bun.build({
    entrypoints: [join(import.meta.dir, "..", "console", "main.tsx")],
    target: "browser",
    minify: true,
    // Content-hashed names: the page names them, so browsers may keep them for good.
    naming: { entry: "[name]-[hash].[ext]", asset: "[name]-[hash].[ext]", chunk: "[name]-[hash].[ext]" },
    define: { "process.env.NODE_ENV": JSON.stringify("production") },
  });
  if (!result.success) throw new AggregateError(result.logs, "the console does not build");
  const assets: ConsoleAssets = {};
  for (const output of result.outputs) {
    const name = output.path.replace(/^.*\//, "");
    const ext = name.slice(name.lastIndexOf(".") + 1);
    if (!TYPES[ext]) continue;
    assets[name] = { body: await output.text(), type: TYPES[ext]! };
  }
  const script = Object.keys(assets).find((n) => n.endsWith(".js"));
  const styles = Object.keys(assets).filter((n) => n.endsWith(".css"));
  assets["index.html"] = {
    type: "text/html; charset=utf-8",
    body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Sluice console</title><link rel="icon" href="data:,">${styles.map((s) => `<link rel="stylesheet" href="${s}">`).join("")}</head><body><div id="app"></div><script type="module" src="${script}"></script></body></html>`,
  };
  return assets;
}
