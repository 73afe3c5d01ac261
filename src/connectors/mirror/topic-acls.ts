// Which of the source cluster's topic ACLs MirrorSourceConnector copies to the target, and as what: Kafka 4.1's
// syncTopicAcls. Only bindings on one topic by name (LITERAL; a PREFIXED one is left out) for a topic the
// connector would replicate; every one but ALLOW WRITE (only the replicator writes to a remote topic), an
// ALLOW ALL as ALLOW READ, DENY ones as they are; named after the remote topic, principal and host kept.
import type { TopicAcl } from "../../broker/broker.ts";

export function shouldReplicateAcl(acl: TopicAcl): boolean {
  return !(acl.permission === "ALLOW" && acl.operation === "WRITE");
}

/** The source binding as the target gets it. */
export function targetTopicAcl(acl: TopicAcl, remoteTopic: string): TopicAcl {
  const operation = acl.permission === "ALLOW" && acl.operation === "ALL" ? "READ" : acl.operation;
  return { ...acl, topic: remoteTopic, patternType: "LITERAL", operation };
}

/**
 * The bindings to create on the target, each once: Kafka's connector asks for duplicates (an ALLOW READ and
 * an ALLOW ALL of the same principal), which the authorizer keeps once anyway.
 */
export function targetTopicAcls(
  source: TopicAcl[],
  shouldReplicateTopic: (topic: string) => boolean,
  formatRemoteTopic: (topic: string) => string,
): TopicAcl[] {
  const out = new Map<string, TopicAcl>();
  for (const acl of source) {
    if (acl.patternType !== "LITERAL" || !shouldReplicateAcl(acl) || !shouldReplicateTopic(acl.topic)) continue;
    const target = targetTopicAcl(acl, formatRemoteTopic(acl.topic));
    out.set(JSON.stringify([target.topic, target.principal, target.host, target.operation, target.permission]), target);
  }
  return [...out.values()];
}
