// The whole test suite: installs what the tests need (Kafka, Debezium and OpenSearch jars through mvn, the
// database servers and Chromium from Debian's packages, Python's confluent-kafka; npm packages are installed by the
// `npm install` before this), checks the lint (npm run lint), then runs every test with bun and prints the summary line
// `N passed, N failed`, after each failure's message. With CI=true a missing dependency fails the run; nothing is skipped.
import { spawn, spawnSync } from "bun";
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { chromiumBinary } from "./fixtures/browser.ts";
import { describeFailures, readJunit } from "./fixtures/junit.ts";
import { debeziumClasspath } from "./fixtures/debezium.ts";
import { kafkaClasspath } from "./fixtures/kafka.ts";
import { mariadbBinaries } from "./fixtures/mariadb.ts";
import { mirrorProbeClasspath } from "./fixtures/mirror-probe.ts";
import { openSearchClasspath } from "./fixtures/opensearch.ts";
import { postgresBinDir } from "./fixtures/postgres.ts";
import { interopPython } from "./fixtures/python.ts";

const root = join(import.meta.dir, "..");
const reportDir = join(root, "node_modules", ".cache", "sluice");
const reportFile = join(reportDir, "junit.xml");

/** A server the tests need: missing is fatal with CI=true; otherwise said here, before its tests fail. */
function found(name: string, where: unknown): void {
  if (where !== null) return;
  if (process.env.CI === "true")
    throw new Error(`${name} is missing and could not be installed (apt-get needs root on Debian)`);
  process.stdout.write(`${name} not available, its tests will fail; `);
}

function step(what: string, action: () => void): void {
  const started = Date.now();
  process.stdout.write(`setup: ${what}... `);
  action();
  console.log(`done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

if (!process.env.KAFKA_BOOTSTRAP_SERVERS)
  step("Apache Kafka jars (Maven Central, cached in ~/.m2)", () => void kafkaClasspath());
step("Python confluent-kafka for the interop tests (PyPI, virtualenv)", () => void interopPython());
step(
  "Debezium's PostgreSQL connector jars for the CDC comparison (Maven Central, cached in ~/.m2)",
  () => void debeziumClasspath(),
);
step(
  "Kafka's MirrorMaker 2 jars for the MM2 comparisons (Maven Central, cached in ~/.m2)",
  () => void mirrorProbeClasspath(),
);
step("OpenSearch jars for the search sink tests (Maven Central, cached in ~/.m2)", () => void openSearchClasspath());
step("PostgreSQL server (Debian package postgresql when missing)", () => found("PostgreSQL", postgresBinDir()));
step("MariaDB server (Debian package mariadb-server when missing)", () => found("MariaDB", mariadbBinaries()));
step("Chromium for the console's browser tests (Debian package chromium when missing)", () =>
  found("Chromium", chromiumBinary()),
);

// The lint (npm run lint) is part of the suite: its findings count as one failed test, told at the end.
process.stdout.write("lint: biome check... ");
const lint = spawnSync([join(root, "node_modules", ".bin", "biome"), "check", "--colors=off", "."], { cwd: root });
const lintFindings = lint.exitCode === 0 ? "" : `${lint.stdout.toString()}${lint.stderr.toString()}`;
console.log(lintFindings ? "findings (listed at the end)" : "clean");

mkdirSync(reportDir, { recursive: true });
rmSync(reportFile, { force: true });
const args = process.argv.slice(2);
const bun = spawn(
  [process.execPath, "test", "--timeout=120000", "--reporter=junit", `--reporter-outfile=${reportFile}`, ...args],
  {
    cwd: root,
    stdout: "inherit",
    stderr: "inherit",
    env: { ...process.env, NODE_ENV: "test" },
  },
);
const code = await bun.exited;

let passed = 0;
let failed = 0;
let skipped = 0;
try {
  const report = readJunit(readFileSync(reportFile, "utf8"));
  ({ failed, skipped } = report);
  passed = report.tests - failed - skipped;
  // Last, so that a log's tail says why each test failed.
  if (report.failures.length > 0) console.log(`\n${describeFailures(report.failures)}`);
} catch {
  failed = Math.max(failed, 1);
}
if (code !== 0 && failed === 0) failed = 1;
if (lintFindings) {
  console.log(`\nnpm run lint found:\n${lintFindings}`);
  failed += 1;
}
console.log(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(failed === 0 ? 0 : 1);
