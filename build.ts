// bun run build → dist/sluice: one executable with the registry, the connect runtime and the
// built-in connectors; it needs no node_modules beside it.
import { rmSync } from "node:fs";

rmSync("dist", { recursive: true, force: true });
const result = await Bun.build({
  entrypoints: ["src/cli.ts"],
  compile: { outfile: "dist/sluice" },
  minify: true,
  sourcemap: "linked",
  target: "bun",
});
if (!result.success) {
  for (const log of result.logs) console.error(log);
  process.exit(1);
}
console.log("built dist/sluice");
