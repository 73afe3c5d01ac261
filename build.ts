// bun run build → dist/sluice: one executable with the registry, the connect runtime and the
// built-in connectors; it needs no node_modules beside it. Also the release binaries for Linux x64
// (and x64-baseline, for CPUs without AVX2) and arm64 in dist/release, with their SHA-256 sums, and
// dist/serde: sluice/serde for Node apps.
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { spawnSync } from "bun";
import pkg from "./package.json" with { type: "json" };
import { buildConsole } from "./src/console-host/bundle.ts";

// The commit the binary reports (`sluice --version`): SLUICE_COMMIT (the Dockerfile's COMMIT: its build
// context has no .git, its node image no git), else git's; "unknown" outside a git checkout.
function gitCommit(): string {
  if (!Bun.which("git")) return "unknown";
  const git = spawnSync(["git", "rev-parse", "--short=12", "HEAD"], { stdout: "pipe", stderr: "ignore" });
  return git.exitCode === 0 ? git.stdout.toString().trim() : "unknown";
}
const commit = process.env.SLUICE_COMMIT || gitCommit();

rmSync("dist", { recursive: true, force: true });
mkdirSync("dist/release", { recursive: true });

const releaseTargets = ["bun-linux-x64", "bun-linux-x64-baseline", "bun-linux-arm64"] as const;

/**
 * @platformatic/kafka's WebAssembly helpers read a .wasm file beside their module when loaded, which a
 * compiled binary does not have; their "bundled" build carries the same module inline.
 */
const inlineWasm: Bun.BunPlugin = {
  name: "inline-wasm",
  setup(build) {
    build.onResolve({ filter: /^@platformatic\/wasm-utils$/ }, (args) => ({
      path: Bun.resolveSync("@platformatic/wasm-utils/bundled", dirname(args.importer)),
    }));
  },
};

/**
 * @platformatic/kafka compiles ~40 ajv validators of its clients' options when its modules load: two thirds
 * of every start of the binary (the process, each task thread, the schema thread), for validators most
 * runs never call. Its one ajv instance compiles a validator on the validator's first call instead.
 */
const lazyClientValidators: Bun.BunPlugin = {
  name: "lazy-client-validators",
  setup(build) {
    build.onLoad({ filter: /@platformatic[\\/]kafka[\\/]dist[\\/]utils\.js$/ }, async (args) => ({
      loader: "js",
      contents: `${await Bun.file(args.path).text()}
const compileNow = ajv.compile.bind(ajv);
ajv.compile = (schema) => {
  let compiled;
  const validate = (data) => {
    compiled ??= compileNow(schema);
    const valid = compiled(data);
    validate.errors = compiled.errors;
    return valid;
  };
  return validate;
};
`,
    }));
  },
};

/**
 * The web console, bundled once for browsers and put into the binary as text: src/console-host/assets.ts
 * (which bundles on first use when run from source) becomes a module holding the bundle.
 */
const consoleBundle = await buildConsole();
const inlineConsole: Bun.BunPlugin = {
  name: "inline-console",
  setup(build) {
    build.onLoad({ filter: /src\/console-host\/assets\.ts$/ }, () => ({
      loader: "ts",
      contents: `const assets = ${JSON.stringify(consoleBundle)};\nexport function consoleAssets() { return Promise.resolve(assets); }\n`,
    }));
  },
};

async function compile(outfile: string, target?: (typeof releaseTargets)[number]): Promise<void> {
  const result = await Bun.build({
    // The threads' entries (the registry's schema thread and the connect worker's task threads) are
    // bundled too; flat names put them beside the CLI's, where the threads are started from.
    entrypoints: ["src/cli.ts", "src/registry/schema-thread/on-schema-thread.ts", "src/task-thread.ts"],
    naming: { entry: "[name].[ext]" },
    compile: target ? { outfile, target } : { outfile },
    // Identifiers stay: stack traces (a failed task's trace) show them. keepNames would only fix .name;
    // the frames would still show the minified identifiers.
    minify: { whitespace: true, syntax: true, identifiers: false },
    sourcemap: "linked",
    bytecode: true,
    format: "esm",
    target: "bun",
    // Bun inlines NODE_ENV at build time (from the building shell, else "development"): fixed here so
    // the binary a test run builds (NODE_ENV=test) behaves as the one people run.
    define: {
      "process.env.SLUICE_COMMIT": JSON.stringify(commit),
      "process.env.NODE_ENV": JSON.stringify("production"),
    },
    plugins: [inlineWasm, lazyClientValidators, inlineConsole],
  });
  failOn(result);
}

function failOn(result: Bun.BuildOutput): void {
  if (result.success) return;
  for (const log of result.logs) console.error(log);
  process.exit(1);
}

/**
 * sluice/serde for Node: one ES module with its dependencies inside (an app installs nothing else), and
 * the declarations of its types, whose relative imports name the .js files Node's resolution expects.
 */
async function buildSerde(): Promise<void> {
  failOn(await Bun.build({ entrypoints: ["src/serde/index.ts"], outdir: "dist/serde", target: "node", format: "esm" }));
  const types = "dist/serde/types";
  const tsc = spawnSync(
    [
      "node_modules/.bin/tsc",
      "--ignoreConfig",
      "src/serde/index.ts",
      "--declaration",
      "--emitDeclarationOnly",
      "--outDir",
      types,
      "--rootDir",
      "src",
      "--allowImportingTsExtensions",
      "--target",
      "esnext",
      "--module",
      "esnext",
      "--moduleResolution",
      "bundler",
      "--types",
      "bun",
      "--strict",
      "--skipLibCheck",
      "--verbatimModuleSyntax",
    ],
    { stdout: "inherit", stderr: "inherit" },
  );
  if (tsc.exitCode !== 0) process.exit(1);
  for (const file of readdirSync(types, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".d.ts"))) {
    const path = join(types, file);
    writeFileSync(path, readFileSync(path, "utf8").replace(/(["'])(\.\.?\/[^"']+)\.ts\1/g, "$1$2.js$1"));
  }
}

await compile("dist/sluice");
const sums: string[] = [];
for (const target of releaseTargets) {
  const name = `sluice-${pkg.version}-${target.replace("bun-", "")}`;
  await compile(`dist/release/${name}`, target);
  sums.push(
    `${createHash("sha256")
      .update(readFileSync(`dist/release/${name}`))
      .digest("hex")}  ${name}`,
  );
}
writeFileSync("dist/release/SHA256SUMS", sums.join("\n") + "\n");
await buildSerde();
const weight = Object.values(consoleBundle).reduce((sum, a) => sum + Buffer.byteLength(a.body), 0);
const gzipped = Object.values(consoleBundle).reduce((sum, a) => sum + Bun.gzipSync(a.body).length, 0);
console.log(
  `built dist/sluice and dist/release (${pkg.version}, commit ${commit}); the console weighs ${weight} bytes, ${gzipped} gzipped`,
);
