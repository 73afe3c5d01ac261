// Responses as Kafka Connect's resources write them: JSON bodies, or none.

export const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(body === undefined ? null : JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
export const empty = (status: number) => new Response(null, { status });
