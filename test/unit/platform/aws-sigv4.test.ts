// SigV4 against AWS's published Signature Version 4 test suite (credentials AKIDEXAMPLE, 2015-08-30T12:36:00Z,
// us-east-1, service "service"), and the presigned URL's shape.
import { expect, test } from "bun:test";
import { amzDate, canonicalQuery, EMPTY_PAYLOAD_HASH, presignedUrl, sign, uriEncode } from "#src/platform/aws-sigv4.ts";

const credentials = { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY" };
const date = new Date("2015-08-30T12:36:00Z");
const suite = (method: string, query: [string, string][] = []) =>
  sign({
    method,
    path: "/",
    query,
    headers: { host: "example.amazonaws.com", "x-amz-date": amzDate(date) },
    payloadHash: EMPTY_PAYLOAD_HASH,
    credentials,
    region: "us-east-1",
    service: "service",
    date,
  });

test("get-vanilla: canonical request, string to sign, signature", () => {
  const signed = suite("GET");
  expect(signed.canonicalRequest).toBe(
    "GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
  );
  expect(signed.stringToSign).toBe(
    "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\nbb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63",
  );
  expect(signed.signature).toBe("5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31");
});

test("post-vanilla, get-vanilla-query-order-key-case, get-vanilla-query-unreserved", () => {
  expect(suite("POST").signature).toBe("5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b");
  expect(
    suite("GET", [
      ["Param2", "value2"],
      ["Param1", "value1"],
    ]).signature,
  ).toBe("b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500");
  const unreserved = "-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  expect(suite("GET", [[unreserved, unreserved]]).signature).toBe(
    "9c3e54bfcdf0b19771a7f523ee5669cdf59bc7cc0884027167c21bb143a40197",
  );
});

test("RFC 3986 encoding and sorting of the query", () => {
  expect(uriEncode("a b/c~d*!'()")).toBe("a%20b%2Fc~d%2A%21%27%28%29");
  expect(
    canonicalQuery([
      ["b", "2"],
      ["a", "x y"],
      ["a", "1"],
    ]),
  ).toBe("a=1&a=x%20y&b=2");
  expect(amzDate(new Date("2000-02-29T00:00:00.123Z"))).toBe("20000229T000000Z");
});

test("a presigned URL: the request's parameters, X-Amz-* in the signers' order, the signature, then the unsigned ones", () => {
  const url = presignedUrl({
    host: "kafka.us-east-1.amazonaws.com",
    params: [["Action", "kafka-cluster:Connect"]],
    credentials: { ...credentials, sessionToken: "tok/en" },
    region: "us-east-1",
    service: "kafka-cluster",
    date,
    expiresSeconds: 900,
    unsigned: [["User-Agent", "x/1"]],
  });
  const names = [...new URL(url).searchParams.keys()];
  expect(names).toEqual([
    "Action",
    "X-Amz-Algorithm",
    "X-Amz-Credential",
    "X-Amz-Date",
    "X-Amz-Expires",
    "X-Amz-SignedHeaders",
    "X-Amz-Security-Token",
    "X-Amz-Signature",
    "User-Agent",
  ]);
  expect(url).toContain("Action=kafka-cluster%3AConnect&");
  expect(url).toContain("X-Amz-Credential=AKIDEXAMPLE%2F20150830%2Fus-east-1%2Fkafka-cluster%2Faws4_request&");
  // The user agent is not signed: another one leaves the signature as it was.
  const other = presignedUrl({
    host: "kafka.us-east-1.amazonaws.com",
    params: [["Action", "kafka-cluster:Connect"]],
    credentials: { ...credentials, sessionToken: "tok/en" },
    region: "us-east-1",
    service: "kafka-cluster",
    date,
    expiresSeconds: 900,
    unsigned: [["User-Agent", "y/2"]],
  });
  expect(new URL(other).searchParams.get("X-Amz-Signature")).toBe(new URL(url).searchParams.get("X-Amz-Signature"));
});
