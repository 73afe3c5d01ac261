// A user's first day with dist/sluice: the commands --help lists, the settings the docs show, and
// what the binary says when something is missing, misspelt or left at the development default.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { freeListener, install, linesWith, type Install } from "../fixtures/sluice-process.ts";

let sluice: Install;
beforeAll(() => {
  sluice = install();
}, 180_000);
afterAll(() => sluice.remove());

describe("each command's usage", () => {
  const commands = [
    "dev",
    "registry",
    "connect-standalone",
    "connect-distributed",
    "healthcheck",
    "repair-log",
    "hash-password",
  ];

  test.each(commands)("sluice %s --help prints its usage and exits 0", (command) => {
    const { exitCode, stdout } = sluice.run([command, "--help"]);
    expect(stdout).toContain(`Usage: sluice ${command}`);
    expect(exitCode).toBe(0);
  });

  test.each([
    ["registry", "--kafkastore.topic=_schemas", "http://0.0.0.0:8081"],
    ["connect-standalone", "--offset.flush.interval.ms=10000", "http://0.0.0.0:8083"],
    ["connect-distributed", "--group.id=connect-cluster", "http://0.0.0.0:8083"],
  ])(
    "sluice %s --help shows a setting of its own service (%s), its listener, and where settings and the console are",
    (command, setting, listener) => {
      const { stdout } = sluice.run([command, "--help"]);
      expect(stdout).toContain(`any setting by name, e.g. ${setting}`);
      expect(stdout).toContain(`--listeners <urls>            e.g. ${listener}`);
      if (command !== "registry") expect(stdout).not.toContain("kafkastore");
      expect(stdout).toContain("Every setting, with its default: `sluice config-docs`");
      expect(stdout).toContain("The web console: /ui/ on each listener.");
      expect(sluice.run(["config-docs"]).stdout).toContain(setting.slice(2).split("=")[0]!);
    },
  );

  test.each([
    [
      "connect-standalone",
      "a worker properties file",
      "Usage: sluice connect-standalone worker.properties [connector files…]",
    ],
    ["connect-distributed", "a worker properties file", "Usage: sluice connect-distributed worker.properties"],
    ["repair-log", "the partition log files to repair", "Usage: sluice repair-log"],
    ["hash-password", "the password to hash (typed at the prompt or given on stdin)", "Usage: sluice hash-password"],
  ])(
    "sluice %s without its arguments says it needs %s, with its usage, and exits non-zero",
    (command, needs, usage) => {
      const { exitCode, stderr } = sluice.run([command]);
      expect(stderr).toContain(`sluice ${command} needs ${needs}`);
      expect(stderr).toContain(usage);
      expect(stderr).not.toContain("Invalid value");
      expect(exitCode).not.toBe(0);
    },
  );
});

describe("hash-password keeps the password out of the shell's history", () => {
  const verifies = (out: string, password: string) => Bun.password.verify(password, out.trim());

  test("read from stdin: the first line is hashed", async () => {
    const proc = Bun.spawnSync([sluice.bin, "hash-password"], { stdin: Buffer.from("s3cret pass\nignored\n") });
    expect(proc.exitCode).toBe(0);
    expect(await verifies(proc.stdout.toString(), "s3cret pass")).toBe(true);
  });

  test("typed at a terminal's prompt, twice, and never echoed; two that differ hash nothing", async () => {
    // util-linux's script gives the binary a terminal, as a person's shell does.
    const typing = async (first: string, again: string) => {
      const proc = Bun.spawn(["script", "-qec", `${sluice.bin} hash-password`, "/dev/null"], {
        stdin: "pipe",
        stdout: "pipe",
      });
      let out = "";
      const reader = proc.stdout.getReader();
      const until = async (text: string) => {
        while (!out.includes(text)) {
          const { value, done } = await reader.read();
          if (done) throw new Error(`the prompt ${JSON.stringify(text)} never came: ${out}`);
          out += new TextDecoder().decode(value);
        }
      };
      await until("Password: ");
      proc.stdin.write(`${first}\r`);
      await proc.stdin.flush();
      await until("Again: ");
      proc.stdin.write(`${again}\r`);
      await proc.stdin.flush();
      for (let r = await reader.read(); !r.done; r = await reader.read()) out += new TextDecoder().decode(r.value);
      return { code: await proc.exited, out };
    };
    const same = await typing("typed-pw", "typed-pw");
    expect(same.code).toBe(0);
    expect(same.out).not.toContain("typed-pw");
    expect(await verifies(same.out.split("Again: ")[1]!, "typed-pw")).toBe(true);
    const differ = await typing("one-pw", "other-pw");
    expect(differ.code).toBe(1);
    expect(differ.out).toContain("The passwords differ; nothing hashed.");
    expect(differ.out).not.toContain("$2b$");
  });

  test("given as an argument it still works, with a warning about the history", async () => {
    const { exitCode, stdout, stderr } = sluice.run(["hash-password", "argpw"]);
    expect(exitCode).toBe(0);
    expect(stderr).toContain("a password on the command line stays in the shell's history");
    expect(await verifies(stdout, "argpw")).toBe(true);
  });
});

describe("dev's flags", () => {
  test("sluice dev --listeners is refused (exit 2), naming --registry-listeners and --connect-listeners", () => {
    const { exitCode, stderr } = sluice.run(["dev", "--listeners", freeListener()]);
    expect(stderr).toContain("--registry-listeners");
    expect(stderr).toContain("--connect-listeners");
    expect(stderr).toContain("Usage: sluice dev");
    expect(exitCode).toBe(2);
  });

  test("sluice dev --help says dev keeps its connectors, offsets and schemas across restarts", () => {
    const { stdout } = sluice.run(["dev", "--help"]);
    expect(stdout).toMatch(/keeps .*connectors.*offsets.*schemas/s);
  });
});

describe("docs/commands.md", () => {
  const page = readFileSync(join(import.meta.dir, "..", "..", "docs", "commands.md"), "utf8");

  test("every sluice command in the command table is one sluice --help lists", () => {
    const help = sluice.run(["--help"]).stdout;
    const commands = [...page.matchAll(/^\| `dist\/sluice ([a-z][a-z-]*)/gm)].map((m) => m[1]!);
    expect(commands.length).toBeGreaterThan(5);
    expect(commands.filter((command) => !help.includes(`sluice ${command} `))).toEqual([]);
  });

  test("every flag sluice dev --help prints is in the command table", () => {
    const flags = [...sluice.run(["dev", "--help"]).stdout.matchAll(/^ {2}(--[a-z-]+)/gm)].map((m) => m[1]!);
    expect(flags).toContain("--registry-listeners");
    expect(flags.filter((flag) => !page.includes(`\`${flag}`))).toEqual([]);
  });
});

describe("settings", () => {
  test("a misspelt setting is reported with the nearest known name; the embedded broker is announced once", async () => {
    const registry = await sluice.start([
      "registry",
      "--kafkastore.bootstrap.server=127.0.0.1:9092",
      "--listeners",
      freeListener(),
      "--data-dir",
      "typo-data",
    ]);
    const output = registry.output();
    expect(
      linesWith(
        output,
        "Unknown setting kafkastore.bootstrap.server is ignored; did you mean kafkastore.bootstrap.servers?",
      ),
    ).toHaveLength(1);
    const embedded = linesWith(output, "embedded broker");
    expect(embedded.filter((l) => l.includes('"level":"warn"'))).toHaveLength(1);
    expect(embedded.join("\n")).toContain(join(sluice.dir, "typo-data"));
    expect(embedded.join("\n")).toContain("kafkastore.bootstrap.servers");
  }, 90_000);

  test("connect-standalone on the embedded broker says so once, naming the data directory", async () => {
    const worker = join(sluice.dir, "worker.properties");
    await Bun.write(
      worker,
      `listeners=${freeListener()}\nkey.converter=org.apache.kafka.connect.storage.StringConverter\n`,
    );
    const connect = await sluice.start(["connect-standalone", worker, "--data-dir", "connect-data"]);
    const embedded = linesWith(connect.output(), "embedded broker").filter((l) => l.includes('"level":"warn"'));
    expect(embedded).toHaveLength(1);
    expect(embedded[0]).toContain(join(sluice.dir, "connect-data"));
    expect(embedded[0]).toContain("bootstrap.servers");
  }, 90_000);

  test("dev with every setting the docs and the Dockerfile show: no unknown-setting warning, no embedded-broker warning", async () => {
    const dev = await sluice.start(
      [
        "dev",
        "--registry-listeners",
        freeListener(),
        "--connect-listeners",
        freeListener(),
        "--data-dir",
        "dev-data",
        "--kafkastore.topic.replication.factor=1",
        "--kafkastore.topic=_schemas",
        "--offset.flush.interval.ms=1000",
      ],
      { SCHEMA_REGISTRY_DATA_DIR: join(sluice.dir, "dev-data"), CONNECT_DATA_DIR: join(sluice.dir, "dev-data") },
    );
    expect(linesWith(dev.output(), "Unknown setting")).toEqual([]);
    expect(linesWith(dev.output(), "embedded broker").filter((l) => l.includes('"level":"warn"'))).toEqual([]);
  }, 90_000);

  test("dev reports a setting neither service knows once, with the nearest name of either", async () => {
    const dev = await sluice.start([
      "dev",
      "--registry-listeners",
      freeListener(),
      "--connect-listeners",
      freeListener(),
      "--data-dir",
      "dev-typo",
      "--offset.flush.interval=1000",
    ]);
    expect(linesWith(dev.output(), "Unknown setting")).toHaveLength(1);
    expect(dev.output()).toContain(
      "Unknown setting offset.flush.interval is ignored; did you mean offset.flush.interval.ms?",
    );
  }, 90_000);
});

describe("the JavaScript heaps are sized for the service, not the machine", () => {
  const environOf = (pid: number) =>
    Object.fromEntries(
      readFileSync(`/proc/${pid}/environ`, "utf8")
        .split("\0")
        .filter(Boolean)
        .map((entry) => [entry.slice(0, entry.indexOf("=")), entry.slice(entry.indexOf("=") + 1)]),
    );

  test("a service restarts itself once, in the same process, with its heaps sized for at most 2 GiB, grown by half", async () => {
    const registry = await sluice.start(["registry", "--listeners", freeListener(), "--data-dir", "heap-data"]);
    const environ = environOf(registry.proc.pid);
    const size = Number(environ.BUN_JSC_forceRAMSize);
    expect(size).toBeGreaterThan(0);
    expect(size).toBeLessThanOrEqual(2 * 1024 ** 3);
    expect(environ.BUN_JSC_smallHeapGrowthFactor).toBe("1.5");
    expect(linesWith(registry.output(), "listening on")).toHaveLength(1);
  }, 90_000);

  test("a value the environment sets is kept", async () => {
    const registry = await sluice.start(["registry", "--listeners", freeListener(), "--data-dir", "heap-own"], {
      BUN_JSC_forceRAMSize: "4294967296",
    });
    const environ = environOf(registry.proc.pid);
    expect(environ.BUN_JSC_forceRAMSize).toBe("4294967296");
    expect(environ.BUN_JSC_smallHeapGrowthFactor).toBe("1.5");
  }, 90_000);
});
