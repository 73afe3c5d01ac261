// Topic names and `meta.json`: what a topic was created with. Written atomically after its partition
// files exist, so a topic directory without meta.json is a creation that crashed half way.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { BrokerError, type TopicDescription } from "../broker.ts";
import { writeFileAtomic } from "../../platform/files.ts";

const LEGAL_NAME = /^[a-zA-Z0-9._-]{1,249}$/;

/** Kafka's topic name rules (InvalidTopicException), which also keep names safe as directory names. */
export function validateTopicName(name: string): void {
  if (!LEGAL_NAME.test(name) || name === "." || name === "..") {
    throw new BrokerError(
      `invalid topic name ${JSON.stringify(name)}: 1-249 characters of [a-zA-Z0-9._-], not "." or ".."`,
      false,
    );
  }
}

export function topicDirName(name: string): string {
  return encodeURIComponent(name);
}

/** The file naming a topic complete. */
export const META_FILE = "meta.json";

function metaFile(topicDir: string): string {
  return join(topicDir, META_FILE);
}

export async function writeTopicMeta(topicDir: string, meta: TopicDescription): Promise<void> {
  await writeFileAtomic(metaFile(topicDir), `${JSON.stringify(meta, null, 2)}\n`);
}

/** The stored description, or undefined when meta.json does not exist. Throws on a malformed file. */
export async function readTopicMeta(topicDir: string): Promise<TopicDescription | undefined> {
  let text: string;
  try {
    text = await readFile(metaFile(topicDir), "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
  let meta: Partial<TopicDescription>;
  try {
    meta = JSON.parse(text) as Partial<TopicDescription>;
  } catch (err) {
    throw new BrokerError(`malformed topic metadata ${metaFile(topicDir)}: ${(err as Error).message}`, false);
  }
  if (
    meta === null ||
    typeof meta.name !== "string" ||
    !Number.isInteger(meta.partitions) ||
    (meta.partitions ?? 0) < 1 ||
    typeof meta.replicationFactor !== "number" ||
    typeof meta.config !== "object" ||
    meta.config === null
  ) {
    throw new BrokerError(`malformed topic metadata ${metaFile(topicDir)}`, false);
  }
  return {
    name: meta.name,
    partitions: meta.partitions!,
    replicationFactor: meta.replicationFactor,
    config: meta.config,
  };
}
