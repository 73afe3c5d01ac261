import { expect, test } from "bun:test";
import { systemProperty } from "#src/jvm/system-properties.ts";

const NAME = "org.apache.kafka.sasl.oauthbearer.allowed.urls";

test("a -D flag in KAFKA_OPTS, among others; the last one wins", () => {
  const env = { KAFKA_OPTS: `-Xmx512m -D${NAME}=https://a/token -Dother=x -D${NAME}=https://b/token,file:///t` };
  expect(systemProperty(NAME, env)).toBe("https://b/token,file:///t");
  expect(systemProperty("other", env)).toBe("x");
});

test("quoted values keep their spaces; a bare flag is empty; absent is undefined", () => {
  expect(systemProperty("a.b", { KAFKA_OPTS: `"-Da.b=x y" -Dc` })).toBe("x y");
  expect(systemProperty("c", { KAFKA_OPTS: `'-Da.b=x y' -Dc` })).toBe("");
  expect(systemProperty("a.b", { KAFKA_OPTS: "-Da.bc=1" })).toBeUndefined();
  expect(systemProperty("a.b", {})).toBeUndefined();
});
