// bun run build → dist/sluice: one executable with the registry, the connect runtime and the
// built-in connectors; it needs no node_modules beside it. Also the release binaries for Linux x64
// (and x64-baseline, for CPUs without AVX2) in dist/release, with their SHA-256 sums.
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { spawnSync } from "bun";
import pkg from "./package.json" with { type: "json" };

// The commit the binary reports (`sluice --version`); "unknown" outside a git checkout.
const git = spawnSync(["git", "rev-parse", "--short=12", "HEAD"], { stdout: "pipe", stderr: "ignore" });
const commit = git.exitCode === 0 ? git.stdout.toString().trim() : "unknown";

rmSync("dist", { recursive: true, force: true });
mkdirSync("dist/release", { recursive: true });

async function compile(outfile: string, target?: "bun-linux-x64" | "bun-linux-x64-baseline"): Promise<void> {
  const result = await Bun.build({
    // The schema thread's entry (started by src/registry/schema-thread.ts) is bundled too; flat names
    // put it beside the CLI's, where the thread looks for it.
    entrypoints: ["src/cli.ts", "src/registry/schema-worker.ts"],
    naming: { entry: "[name].[ext]" },
    compile: target ? { outfile, target } : { outfile },
    // Identifiers stay: stack traces (a failed task's trace) show them. keepNames would only fix .name;
    // the frames would still show the minified identifiers.
    minify: { whitespace: true, syntax: true, identifiers: false },
    sourcemap: "linked",
    target: "bun",
    define: { "process.env.SLUICE_COMMIT": JSON.stringify(commit) },
  });
  if (!result.success) {
    for (const log of result.logs) console.error(log);
    process.exit(1);
  }
}

await compile("dist/sluice");
const sums: string[] = [];
for (const target of ["bun-linux-x64", "bun-linux-x64-baseline"] as const) {
  const name = `sluice-${pkg.version}-${target.replace("bun-", "")}`;
  await compile(`dist/release/${name}`, target);
  sums.push(`${createHash("sha256").update(readFileSync(`dist/release/${name}`)).digest("hex")}  ${name}`);
}
writeFileSync("dist/release/SHA256SUMS", sums.join("\n") + "\n");
console.log(`built dist/sluice and dist/release (${pkg.version}, commit ${commit})`);
